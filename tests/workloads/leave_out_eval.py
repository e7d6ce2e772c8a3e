#!/usr/bin/python3
"""eval --leave-out on a small generated set: scripts/make-cases.py runs tests/workloads/tiny-matrix.json (12
short training runs), then `cann-debug eval --leave-out optimizer --json` must score every case exactly once,
in the family of its own optimizer, with tables learnt without that family, and name the worst family.
Exits 77 (CTest: skipped) without torch/sklearn."""
import collections
import json
import os
import subprocess
import sys

import script_support as support
from script_support import ROOT


def main():
    a = support.arguments(__doc__.splitlines()[0], ())
    if not support.have_torch():
        return support.SKIP
    support.fresh(a.work)
    matrix = os.path.join(ROOT, "tests", "workloads", "tiny-matrix.json")
    gen = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-cases.py"), "--matrix", matrix,
                          "--output", a.work], capture_output=True, text=True)
    print(gen.stdout[-2000:])
    if gen.returncode != 0:
        print("FAIL: make-cases:", gen.stderr[-2000:])
        return 1
    # Resumable: a second pass runs nothing.
    again = subprocess.run([sys.executable, os.path.join(ROOT, "scripts", "make-cases.py"), "--matrix", matrix,
                            "--output", a.work], capture_output=True, text=True)
    failures = []
    if "0 runs written" not in again.stdout:
        failures.append(f"second make-cases pass ran again: {again.stdout[-300:]}")
    ev = subprocess.run([a.bin, "eval", "--cases", a.work, "--leave-out", "optimizer", "--json"],
                        capture_output=True, text=True)
    if ev.returncode != 0:
        print("FAIL: eval exit", ev.returncode, ev.stderr[-2000:])
        return 1
    doc = json.loads(ev.stdout)
    rows = doc["cases"]
    cases = sorted(os.path.join(a.work, "training", d) for d in os.listdir(os.path.join(a.work, "training")))
    seen = collections.Counter(os.path.normpath(r["case"]) for r in rows)
    if sorted(seen) != [os.path.normpath(c) for c in cases] or set(seen.values()) != {1}:
        failures.append(f"every case must be scored exactly once: {dict(seen)}")
    for r in rows:
        with open(os.path.join(r["case"], "expected.json")) as f:
            own = json.load(f)["variant"]["optimizer"]
        if r["family"] != own or r["axis"] != "optimizer":
            failures.append(f"{r['case']}: scored in family {r['family']}, its optimizer is {own}")
    axis = doc["axes"][0]
    families = {f["value"]: f for f in axis["families"]}
    if set(families) != {"sgd_momentum", "adam"}:
        failures.append(f"families {sorted(families)}")
    if sum(f["cases"] for f in families.values()) != len(cases):
        failures.append("family sizes do not add up to the cases")
    if axis["worst_family"]["top1_accuracy"] != min(f["top1_accuracy"] for f in families.values()):
        failures.append("worst family is not the least accurate")
    right = sum(r["predicted"] == r["label"] for r in rows)
    print(f"leave-out optimizer: {right}/{len(rows)} right; families "
          + ", ".join(f"{k} {v['top1_accuracy']:.2f}" for k, v in families.items()))
    # Strong faults of three causes that differ in kind: tables learnt on the other optimizer still name most.
    if right < 0.75 * len(rows):
        failures.append(f"only {right} of {len(rows)} held-out cases right")
    return support.report(failures)


if __name__ == "__main__":
    sys.exit(main())
