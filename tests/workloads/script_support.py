"""What the workload test scripts share: their command line and the torch check (exit 77 = CTest skip)."""
import argparse
import os
import shutil
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SKIP = 77


def arguments(description, extra=()):
    """--bin (the cann-debug binary) and --work (a scratch folder, emptied), plus (flag, help) extras."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--bin", required=True)
    ap.add_argument("--work", required=True)
    for flag, help_text in extra:
        ap.add_argument(flag, help=help_text)
    return ap.parse_args()


def have_torch():
    try:
        import sklearn  # noqa: F401
        import torch  # noqa: F401
    except ImportError:
        print("skipped: no torch/sklearn in", sys.executable)
        return False
    return True


def fresh(folder):
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(folder)


def report(failures):
    """Prints each failure; the exit code: 1 when there was one, else 0."""
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0
