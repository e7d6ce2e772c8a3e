#!/usr/bin/python3
"""eval --leave-out on a small generated set: scripts/make-cases.py runs tests/workloads/tiny-matrix.json (12
short training runs), then `cann-debug eval --leave-out optimizer --json` must score every case exactly once,
in the family of its own optimizer, with tables learnt without that family, and name the worst family;
scripts/measure-fault-effect.py then runs each case's healthy twin and splits the eval by whether the fault
acted.
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
    failures += fault_effects(a.work, ev.stdout, len(cases))
    return support.report(failures)


def fault_effects(corpus, eval_json, n_cases):
    """measure-fault-effect.py: every fault is compared with its healthy twin (same seed and settings, the
    fault's own keys dropped), every healthy run with a reseed; a strong clip 100x below the gradient norm
    acts; `score` splits the eval by it."""
    failures = []
    script = os.path.join(ROOT, "scripts", "measure-fault-effect.py")
    twins = corpus.rstrip("/") + ".twins"
    support.fresh(twins)
    run = subprocess.run([sys.executable, script, "run", "--corpus", corpus], capture_output=True, text=True)
    print(run.stdout[-1500:])
    if run.returncode != 0:
        return [f"measure-fault-effect run: exit {run.returncode}: {run.stderr[-1500:]}"]
    with open(os.path.join(corpus, "fault-effects.jsonl")) as f:
        lines = [json.loads(line) for line in f]
    header, rows = lines[0], lines[1:]
    if len(rows) != n_cases or header["reseed_pairs"].get("training") != sum(r["fault"] == "none" for r in rows):
        failures.append(f"{len(rows)} effect rows for {n_cases} cases, {header['reseed_pairs']} reseed pairs")
    for r in rows:
        twin_folder = os.path.join(twins, os.path.basename(r["case"]) + ("-reseed" if r["fault"] == "none" else ""))
        with open(os.path.join(twin_folder, "expected.json")) as f:
            twin_expected = json.load(f)
        with open(os.path.join(twin_folder, "config.json")) as f:
            twin_config = json.load(f)
        with open(os.path.join(r["case"], "config.json")) as f:
            case_config = json.load(f)
        if twin_expected["root_cause"] != "healthy" or twin_config["optimizer"]["name"] != case_config["optimizer"]["name"]:
            failures.append(f"{twin_folder}: not a healthy twin with the case's optimizer")
        same_seed = twin_config["seed"] == case_config["seed"]
        if same_seed != (r["fault"] != "none"):
            failures.append(f"{twin_folder}: seed {twin_config['seed']} vs the case's {case_config['seed']}")
        if r["fault"] == "unshuffled_data" and twin_config["data_order"] not in (None, "fresh_shuffle"):
            failures.append(f"{twin_folder}: the twin of an unshuffled run kept the order {twin_config['data_order']}")
        if r["fault"] == "grad_clip_too_low" and not r["acted"]:
            failures.append(f"{r['case']}: a clip at 1% of the gradient norm did not act: {r['effect']}")
    with open(os.path.join(corpus, "eval.json"), "w") as f:
        f.write(eval_json)
    score = subprocess.run([sys.executable, script, "score", "--corpus", corpus, "--eval",
                            os.path.join(corpus, "eval.json")], capture_output=True, text=True)
    print(score.stdout[-1500:])
    if score.returncode != 0 or "faults that acted + healthy" not in score.stdout:
        failures.append(f"measure-fault-effect score: exit {score.returncode}: {score.stderr[-800:]}")
    return failures


if __name__ == "__main__":
    sys.exit(main())
