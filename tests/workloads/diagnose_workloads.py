#!/usr/bin/python3
"""End to end: each workload runs short, once healthy and once with a clear fault, and the real cann-debug
binary must name what was injected. Exits 77 (CTest: skipped) when this Python has no torch/sklearn.

  /usr/bin/python3 tests/workloads/diagnose_workloads.py --bin build/bin/cann-debug --work /tmp/wl
"""
import json
import os
import subprocess
import sys

import script_support as support
from script_support import ROOT


# (workload, fault, magnitude, sets, expected root cause): short runs (seconds each), strong faults.
RUNS = [
    ("train.py", "none", "medium", ["steps=150", "batch_size=32"], "healthy"),
    ("train.py", "lr_too_high", "strong", ["steps=150", "optimizer.name=adam"], "lr_too_high"),
    ("train.py", "grad_clip_too_low", "strong", ["steps=150"], "grad_clip_too_low"),
    # fp16 gradients under a dynamic loss scaler: the customary growth window, and one of a single clean
    # iteration that keeps the scale climbing back into overflow (every second iteration skipped).
    ("train.py", "none", "medium", ["steps=150", "fp16=true"], "healthy"),
    ("train.py", "loss_scale_overflow", "strong", ["steps=150"], "loss_scale_overflow"),
    # Other tenants' busy processes (two per core) take the CPUs: the host recorded beside it says so.
    ("collect train.py", "host_input_bound", "medium", ["steps=1000"], "host_input_bound"),
    ("serve.py", "none", "medium", ["client.num_requests=40"], "healthy"),
    ("serve.py", "no_batching", "strong", ["client.num_requests=60"], "no_batching"),
    ("ddp.py", "none", "medium", ["steps=30"], "healthy"),
    ("ddp.py", "straggler_rank", "strong", ["steps=30"], "straggler_rank"),
    # A mixture of experts over the 2 ranks (expert parallel): balanced, and a router that favours one rank.
    ("ddp.py", "none", "medium", ["steps=30", "model.type=moe"], "healthy"),
    ("ddp.py", "expert_imbalance", "medium", ["steps=30"], "expert_imbalance"),
    # Under `cann-debug collect -- ...`: the workload finds its output folder in $CANN_DEBUG_RUN_DIR, the
    # host is sampled beside it, and the run folder (recording, stdout.log, fusion.json) is diagnosed whole.
    ("collect train.py", "lr_too_high", "strong", ["steps=150", "optimizer.name=sgd"], "lr_too_high"),
    # A regression at a batch of 16: its squared error's step noise is a third of its level, which over the
    # first loss reads like a classifier's tiny batch; the loss operator of the trace names the objective.
    ("train.py", "none", "medium",
     ["steps=150", "batch_size=16", "dataset.name=regression", "model.type=cnn", "optimizer.name=sgd"], "healthy"),
    # Another job lands on the node at 60-75% of the run (two busy processes per core): the log's iteration
    # times show the drop. A slowdown is read over 10-second windows (two at least), so the run asks for 60 s:
    # the pace train.py probes before it has come out up to 1.5 times the run's own.
    # Last, so that the runs above keep their seeds (a run's seed is 11 + its index).
    ("train.py", "throughput_drop", "medium",
     ['steps={"seconds": 60}', "model.type=cnn", "model.width=64", "batch_size=128"], "throughput_drop"),
]


def feature_refs(doc, name):
    """Every evidence reference the diagnosis JSON gives for feature `name` (details, at any depth)."""
    if isinstance(doc, dict):
        if doc.get("feature") == name and isinstance(doc.get("ref"), dict):
            yield doc["ref"]
        for value in doc.values():
            yield from feature_refs(value, name)
    elif isinstance(doc, list):
        for value in doc:
            yield from feature_refs(value, name)


def check_fusion(folder, failures):
    """The run folder of `collect -- COMMAND` names the workload and what was recorded beside it."""
    with open(os.path.join(folder, "fusion.json")) as f:
        fusion = json.load(f)
    if fusion["workload"].get("exit_code") != 0:
        failures.append(f"{folder}/fusion.json: workload {fusion['workload']}")
    sources = {s["path"]: s for s in fusion["sources"]}
    if sources.get("recording.cdr", {}).get("samples", 0) <= 0:
        failures.append(f"{folder}/fusion.json: no hardware samples: {sources.get('recording.cdr')}")
    if "metrics.jsonl" not in sources:
        failures.append(f"{folder}/fusion.json: the workload's metrics.jsonl is not among {sorted(sources)}")


def main():
    a = support.arguments(__doc__.splitlines()[0], [("--only", "only this workload (train.py, serve.py, ddp.py)")])
    if not support.have_torch():
        return support.SKIP
    support.fresh(a.work)
    failures = []
    for i, (workload, fault, magnitude, sets, expected) in enumerate(RUNS):
        if a.only and workload.removeprefix("collect ") != a.only:
            continue
        collected = workload.startswith("collect ")
        workload = workload.removeprefix("collect ")
        folder = os.path.join(a.work, f"{i:02d}-{workload[:-3]}-{fault}{'-collected' if collected else ''}")
        cmd = [sys.executable, os.path.join(ROOT, "workloads", workload), "--fault", fault, "--magnitude",
               magnitude, "--seed", str(11 + i)]
        for s in sets:
            cmd += ["--set", s]
        if collected:
            cmd = [a.bin, "collect", "--sources", "procfs", "--interval", "50ms", "--output", folder, "--"] + cmd
        else:
            cmd += ["--output", folder]
        run = subprocess.run(cmd, capture_output=True, text=True)
        if run.returncode != 0:
            failures.append(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()[-500:]}")
            continue
        if collected:
            check_fusion(folder, failures)
        with open(os.path.join(folder, "expected.json")) as f:
            label = json.load(f)["root_cause"]
        if label != expected:
            failures.append(f"{folder}: expected.json says {label}, not {expected}")
        diag = subprocess.run([a.bin, "diagnose", "--input", folder, "--json"], capture_output=True, text=True)
        if diag.returncode != 0:
            failures.append(f"{folder}: diagnose exit {diag.returncode}: {diag.stderr.strip()[-500:]}")
            continue
        doc = json.loads(diag.stdout)
        got = doc["root_causes"][0]["id"]
        print(f"{'collect -- ' if collected else ''}{workload} --fault {fault} --magnitude {magnitude}: diagnosed {got} "
              f"({doc['root_causes'][0]['confidence']:.2f}), expected {expected}")
        if got != expected:
            failures.append(f"{folder}: diagnosed {got}, expected {expected} "
                            f"(ranked {[c['id'] for c in doc['root_causes']]})")
        if "dataset.name=regression" in sets:
            operators = {r.get("id") for r in feature_refs(doc, "loss.objective_regression")}
            if "aten::mse_loss" not in operators:
                failures.append(f"{folder}: the objective was not read from the trace's aten::mse_loss ({operators})")
    return support.report(failures)


if __name__ == "__main__":
    sys.exit(main())
