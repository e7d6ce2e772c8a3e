#!/usr/bin/env python3
"""Labelled Ascend device profiles: an AI CPU fallback written into a real kernel_details.csv, the way the
profiler would have recorded it.

    scripts/inject-ascend-aicpu-fallback.py --input KERNEL_DETAILS_CSV --output OUT [--magnitude medium]
        [--fault aicpu_fallback|none]

OUT receives OUT/device_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv and OUT/expected.json (FORMAT.md
of the case corpus). aicpu_fallback: the tasks of the operator type with the most AI Core / AI Vector Core
time (or, weak, of the second) run on the AI CPU instead: their Accelerator Core becomes AI_CPU and their
Duration grows 5x / 20x / 50x by magnitude (an AI CPU runs an operator one to two orders of magnitude
slower than its AI Core kernel), the tasks after each in the same step start that much later. none: the
file as recorded (a healthy device profile, apart from the AI CPU tasks it already has).
"""
import argparse
import csv
import json
import os
import sys

SLOWDOWN = {"weak": 5.0, "medium": 20.0, "strong": 50.0}
AI_CORES = ("AI_CORE", "AI_VECTOR_CORE", "MIX_AIC", "MIX_AIV")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--input", required=True, help="a kernel_details.csv of the Ascend PyTorch profiler")
    ap.add_argument("--output", required=True)
    ap.add_argument("--fault", choices=["aicpu_fallback", "none"], default="aicpu_fallback")
    ap.add_argument("--magnitude", choices=sorted(SLOWDOWN), default="medium")
    a = ap.parse_args()
    with open(a.input, newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    header, body = rows[0], rows[1:]
    for column in ("Accelerator Core", "Duration(us)", "Start Time(us)"):
        if column not in header:
            sys.exit(f"{a.input}: expected the column '{column}' of a kernel_details.csv, got {header}")
    core, duration, start = (header.index(c) for c in ("Accelerator Core", "Duration(us)", "Start Time(us)"))
    kind = header.index("Type") if "Type" in header else header.index("Name")
    params = {"magnitude": a.magnitude if a.fault != "none" else None}
    notes = "kernel_details.csv as recorded"
    if a.fault == "aicpu_fallback":
        time_by_type = {}
        for r in body:
            if len(r) == len(header) and r[core] in AI_CORES:
                time_by_type[r[kind]] = time_by_type.get(r[kind], 0.0) + float(r[duration])
        ranked = sorted(time_by_type, key=time_by_type.get, reverse=True)
        if not ranked:
            sys.exit(f"{a.input}: no AI Core task to move to the AI CPU")
        op = ranked[1] if a.magnitude == "weak" and len(ranked) > 1 else ranked[0]
        factor = SLOWDOWN[a.magnitude]
        shift = 0.0
        for r in sorted((r for r in body if len(r) == len(header)), key=lambda r: float(r[start])):
            r[start] = repr(round(float(r[start]) + shift, 3))
            if r[kind] == op and r[core] in AI_CORES:
                added = float(r[duration]) * (factor - 1.0)
                r[core] = "AI_CPU"
                r[duration] = repr(round(float(r[duration]) * factor, 4))
                shift += added
        params.update({"operator": op, "slowdown": factor})
        notes = f"{op} runs on the AI CPU, {factor:g}x its AI Core time (+{shift / 1000.0:.1f} ms)"
    out_dir = os.path.join(a.output, "device_ascend_pt", "ASCEND_PROFILER_OUTPUT")
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(out_dir, "kernel_details.csv"), "w", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows([header] + body)
    expected = {"scenario": "inference", "root_cause": "healthy" if a.fault == "none" else a.fault,
                "healthy": a.fault == "none", "fault_params": params,
                "notes": f"Injected into {os.path.basename(a.input)}: {notes}."}
    with open(os.path.join(a.output, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print(json.dumps(expected))


if __name__ == "__main__":
    main()
