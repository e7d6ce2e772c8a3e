#!/usr/bin/python3
"""Measures whether each injected fault of a generated corpus cost its run anything, against a healthy twin.

A label says which fault was injected, not that it acted. A rate 0.7 times the divergence rate can train as
well as the default one; a shuffle buffer that spans several class blocks mixes the batches almost as a fresh
shuffle does; a cold start can hide in a busy machine's jitter. When the diagnosis reads such a run as
healthy it is scored as a miss, though healthy is what the run's owner needs to hear.

  run    For every faulty run of CORPUS/plan.jsonl (scripts/make-cases.py), runs the same workload with the
         same seed and matrix settings and `--fault none` (TWINS/<id>; the keys the fault sets itself, such
         as an unshuffled run's data_order or a straggler's rank, dropped); for every healthy run, the same
         settings with another seed (TWINS/<id>-reseed: what a reseed alone changes). TWINS defaults to
         CORPUS.twins, beside the corpus, so `eval --learn-from CORPUS` never learns from them. Resumable.
         Then it compares every run with its twin on outcome measures (training: the loss curve's level at
         the end, mean level, highest point and noise; inference: the latencies' median, 99th percentile,
         first request and slowest start; distributed: the step time's median and 90th percentile and the
         spread between ranks) and writes CORPUS/fault-effects.jsonl. A fault "acted" when one of its
         effects exceeds the largest difference of the same measure between a healthy run and its reseed,
         or its loss went non-finite where its twin's did not.
  score  Splits a `cann-debug eval ... --json` result by those measurements: accuracy on the faults that
         acted (with the healthy runs), and on the faults that did not.

The measures are read from metrics.jsonl only, none is a feature the diagnosis reads, so the split does not
depend on what the diagnosis saw. The headline figures stay those over every run.

  /usr/bin/python3 scripts/measure-fault-effect.py run --corpus CORPUS [--scenario training] [--fault CAUSE]
  /usr/bin/python3 scripts/measure-fault-effect.py score --corpus CORPUS --eval EVAL.json
"""
import argparse
import importlib.util
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESEED_OFFSET = 104729  # far from the matrix's consecutive seeds: a reseed never repeats another run
# Keys a fault sets itself; a twin must not inherit them from the matrix (a class-block order is the fault).
FAULT_KEYS = {"unshuffled_data": ("data_order", "shuffle_buffer"), "straggler_rank": ("straggler.rank",),
              "load_imbalance": ("imbalance.rank",)}


def load_make_cases():
    spec = importlib.util.spec_from_file_location("make_cases", os.path.join(ROOT, "scripts", "make-cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def case_id(folder):
    """The run id of a case folder (its last path component), the key of fault-effects.jsonl's rows."""
    return os.path.basename(os.path.normpath(folder))


def read_plan(corpus):
    path = os.path.join(corpus, "plan.jsonl")
    if not os.path.exists(path):
        raise SystemExit(f"error: {path}: no plan (expected a corpus written by scripts/make-cases.py)")
    return read_jsonl(path)


def twin_of(run):
    """The healthy reference of a run: a faulty run's twin (same seed, fault none), a healthy run's reseed."""
    sets = {k: v for k, v in run["sets"].items() if k not in FAULT_KEYS.get(run["fault"], ())}
    if run["fault"] == "none":
        return dict(run, id=run["id"] + "-reseed", seed=run["seed"] + RESEED_OFFSET, sets=sets)
    return dict(run, id=run["id"], fault="none", sets=sets)


def training_outcome(folder):
    """A training run's loss curve (metrics.jsonl), relative to its first tenth's median loss: the level at the
    end, the mean level, the highest point after the first tenth, ln of the noise around a centred running
    median of 11 steps (so a curve that falls fast is not noisy; 0.1% of the initial loss is added, so the
    tiny residuals of two smooth curves are no ratio). Step time is left out: these faults act on learning,
    and a run's speed on a shared machine differs between hours more than the faults change it."""
    losses = [float(row["loss"]) if row["loss"] is not None else math.nan
              for row in read_jsonl(os.path.join(folder, "metrics.jsonl"))
              if row.get("kind", "step") == "step" and "loss" in row]
    finite = [x for x in losses if math.isfinite(x)]
    out = {"units": len(losses), "nonfinite": len(losses) - len(finite)}
    if len(finite) < 12:
        return out
    tenth = max(1, len(finite) // 10)
    head = statistics.median(finite[:tenth]) or 1e-12
    residuals = [abs(finite[i] - statistics.median(finite[i - 5:i + 6])) for i in range(5, len(finite) - 5)]
    out.update({
        "final": statistics.median(finite[-tenth:]) / head,
        "mean": statistics.fmean(finite) / head,
        "peak": max(finite[tenth:]) / head,
        "noise": math.log(statistics.fmean(residuals) / head + 1e-3),
    })
    return out


def serving_outcome(folder):
    """An inference run's request latencies (metrics.jsonl), as ln: the median, the 99th percentile, the first
    request, and the slowest of the first 5% (at least 3) over the median of the second half (serve.py's
    start_over_steady)."""
    reqs = sorted(read_jsonl(os.path.join(folder, "metrics.jsonl")), key=lambda r: r["request_id"])
    lat = [float(r["latency_ms"]) for r in reqs]
    out = {"units": len(lat), "nonfinite": 0}
    if len(lat) < 12 or min(lat) <= 0:
        return out
    head = max(3, len(lat) // 20)
    out.update({
        "p50": math.log(statistics.median(lat)),
        "p99": math.log(percentile(lat, 0.99)),
        "first": math.log(lat[0]),
        "start": math.log(max(lat[:head]) / statistics.median(lat[len(lat) // 2:])),
    })
    return out


def distributed_outcome(folder):
    """A data-parallel run's step times (metrics.jsonl, one row per rank and step, `time` when the step
    ended), as ln: the median and the 90th percentile over every rank's steps (the first two of each rank
    left out: start-up), and the slowest rank's median over the fastest's."""
    by_rank = {}
    for row in read_jsonl(os.path.join(folder, "metrics.jsonl")):
        if "rank" in row and "time" in row and "step" in row:
            by_rank.setdefault(row["rank"], []).append((row["step"], float(row["time"])))
    gaps, medians = [], []
    for rows in by_rank.values():
        times = [t for _, t in sorted(rows)]
        own = [b - a for a, b in zip(times, times[1:])][2:]
        own = [g for g in own if g > 0]
        if own:
            gaps += own
            medians.append(statistics.median(own))
    out = {"units": len(gaps), "nonfinite": 0}
    if len(gaps) < 12:
        return out
    out.update({
        "step": math.log(statistics.median(gaps)),
        "step_p90": math.log(percentile(gaps, 0.9)),
        "rank_spread": math.log(max(medians) / min(medians)),
    })
    return out


OUTCOMES = {"training": training_outcome, "inference": serving_outcome, "distributed": distributed_outcome}
MEASURES = {"training": ("final", "mean", "peak", "noise"), "inference": ("p50", "p99", "first", "start"),
            "distributed": ("step", "step_p90", "rank_spread")}


def effects(run_outcome, twin_outcome):
    """How much worse a run is than its twin, per measure (larger is worse in every measure)."""
    return {k: run_outcome[k] - twin_outcome[k] for k in run_outcome
            if k not in ("units", "nonfinite") and k in twin_outcome}


def percentile(values, q):
    values = sorted(values)
    if not values:
        return None
    pos = q * (len(values) - 1)
    lo, hi = math.floor(pos), math.ceil(pos)
    return values[lo] + (values[hi] - values[lo]) * (pos - lo)


def thresholds(reseed_effects, measures, quantile=1.0):
    """Per measure, the largest |difference| between a healthy run and its reseed (or that quantile of them).
    A fault acts when any one measure exceeds its threshold, so with four measures at their 95th percentiles
    a fault without effect would still "act" about one time in five; the largest keeps that near 1 in 15
    with 60 pairs."""
    return {k: percentile([abs(e[k]) for e in reseed_effects if k in e], quantile) for k in measures}


def verdict(effect, run_outcome, twin_outcome, limits):
    """(acted, the measures that exceed what a reseed changes)."""
    by = [k for k, v in effect.items() if limits.get(k) is not None and v > limits[k]]
    if run_outcome.get("nonfinite", 0) > 0 and twin_outcome.get("nonfinite", 0) == 0:
        by.insert(0, "nonfinite")
    return bool(by), by


def twins_dir_of(a):
    return a.twins or os.path.normpath(a.corpus) + ".twins"


def runs_to_twin(plan, scenarios, faults):
    """The runs of `plan` whose twins to run: those of `scenarios`, of `faults` only when given. The healthy
    runs always stay: their reseeds set the thresholds every fault is measured against."""
    return [r for r in plan if r["scenario"] in scenarios
            and (not faults or r["fault"] == "none" or r["fault"] in faults)]


def run_twins(corpus, twins_dir, scenarios, faults, timeout):
    make_cases = load_make_cases()
    runs = runs_to_twin(read_plan(corpus), scenarios, faults)
    os.makedirs(twins_dir, exist_ok=True)
    started, failures = time.time(), 0
    for k, run in enumerate(runs, 1):
        if not os.path.exists(os.path.join(corpus, run["scenario"], run["id"], "expected.json")):
            continue  # not generated (failed or not yet run): nothing to compare
        twin = twin_of(run)
        folder = os.path.join(twins_dir, twin["id"])
        if os.path.exists(os.path.join(folder, "expected.json")):
            continue
        shutil.rmtree(folder, ignore_errors=True)
        try:
            proc = subprocess.run(make_cases.command(twin, folder), capture_output=True, text=True, timeout=timeout)
            ok = proc.returncode == 0
            why = (proc.stderr.strip().splitlines() or [f"exit {proc.returncode}"])[-1]
        except subprocess.TimeoutExpired:
            ok, why = False, f"timed out after {timeout:.0f} s"
        if not ok:
            failures += 1
            shutil.rmtree(folder, ignore_errors=True)
        print(f"[{k}/{len(runs)}] {twin['id']} {'ok' if ok else 'FAILED: ' + why} "
              f"({(time.time() - started) / 60:.1f} min)", flush=True)
    return failures


def measure(corpus, twins_dir, runs):
    """Effect rows of every run that has a twin, and per scenario the thresholds and the reseed pairs."""
    rows, reseeds = [], {}
    for run in runs:
        case = os.path.join(corpus, run["scenario"], run["id"])
        twin = os.path.join(twins_dir, twin_of(run)["id"])
        if not all(os.path.exists(os.path.join(d, "metrics.jsonl")) for d in (case, twin)):
            continue
        outcome = OUTCOMES[run["scenario"]]
        a, b = outcome(case), outcome(twin)
        e = effects(a, b)
        rows.append({"id": run["id"], "case": case, "scenario": run["scenario"], "fault": run["fault"],
                     "magnitude": run["magnitude"], "outcome": a, "twin": b, "effect": e})
        if run["fault"] == "none":
            reseeds.setdefault(run["scenario"], []).append(e)
    limits = {sc: thresholds(reseeds.get(sc, []), MEASURES[sc]) for sc in {r["scenario"] for r in rows}}
    for r in rows:
        if r["fault"] != "none":
            r["acted"], r["acted_by"] = verdict(r["effect"], r["outcome"], r["twin"], limits[r["scenario"]])
    return rows, limits, {sc: len(v) for sc, v in reseeds.items()}


def cmd_run(a):
    failures = run_twins(a.corpus, twins_dir_of(a), a.scenario or list(OUTCOMES), a.fault, a.timeout)
    # Measured over every run with a twin, so a run for one scenario keeps the others' rows.
    runs = [r for r in read_plan(a.corpus) if r["scenario"] in OUTCOMES]
    rows, limits, pairs = measure(a.corpus, twins_dir_of(a), runs)
    out = os.path.join(a.corpus, "fault-effects.jsonl")
    with open(out, "w") as f:
        f.write(json.dumps({"thresholds": limits, "reseed_pairs": pairs}) + "\n")
        for r in rows:
            f.write(json.dumps(r) + "\n")
    for sc in sorted(limits):
        print(f"{sc}: thresholds (largest difference over {pairs.get(sc, 0)} healthy reseed pairs): "
              + ", ".join(f"{k} {v:.3f}" for k, v in limits[sc].items() if v is not None))
        acted = {}
        for r in rows:
            if r["scenario"] == sc and r["fault"] != "none":
                acted.setdefault((r["fault"], r["magnitude"]), []).append(r["acted"])
        for (cause, magnitude), flags in sorted(acted.items()):
            print(f"  {cause:26s} {magnitude:7s} acted {sum(flags)}/{len(flags)}")
    faulty = [r for r in rows if r["fault"] != "none"]
    print(f"measure-fault-effect: {sum(r['acted'] for r in faulty)} of {len(faulty)} faults acted; "
          f"{failures} twin runs failed -> {out}")
    return 1 if failures else 0


def load_effects(corpus):
    path = os.path.join(corpus, "fault-effects.jsonl")
    if not os.path.exists(path):
        raise SystemExit(f"error: {path}: not found (run `measure-fault-effect.py run --corpus {corpus}` first)")
    lines = read_jsonl(path)
    return lines[0], {case_id(r["case"]): r for r in lines[1:]}


def accuracy(rows):
    if not rows:
        return "-"
    top1 = sum(r["predicted"] == r["label"] for r in rows) / len(rows)
    top3 = sum(r["label"] in r["ranked"][:3] for r in rows) / len(rows)
    return f"top-1 {100 * top1:.1f}%  top-3 {100 * top3:.1f}%  ({len(rows)} rows)"


def cmd_score(a):
    header, by_id = load_effects(a.corpus)
    with open(a.eval) as f:
        doc = json.load(f)
    groups = {"acted": [], "did not act": [], "healthy": [], "unmeasured": []}
    for row in doc["cases"]:
        effect = by_id.get(case_id(row["case"]))
        if row["label"] == "healthy":
            groups["healthy"].append(row)
        elif effect is None or "acted" not in effect:
            groups["unmeasured"].append(row)
        else:
            groups["acted" if effect["acted"] else "did not act"].append(row)
    print(f"{a.eval}: faults measured against their healthy twins (reseed pairs that set the thresholds: "
          + ", ".join(f"{k} {v}" for k, v in sorted(header["reseed_pairs"].items())) + ")")
    print(f"  every row                     {accuracy(doc['cases'])}")
    print(f"  faults that acted + healthy   {accuracy(groups['acted'] + groups['healthy'])}")
    for name in ("acted", "did not act", "healthy", "unmeasured"):
        print(f"  {name:29s} {accuracy(groups[name])}")
    axes = {}
    for row in groups["acted"] + groups["healthy"]:
        axes.setdefault(row.get("axis", ""), []).append(row)
    if len(axes) > 1:
        worst = min(axes.items(), key=lambda kv: sum(r["predicted"] == r["label"] for r in kv[1]) / len(kv[1]))
        print(f"  worst axis (acted + healthy)  {worst[0]}: {accuracy(worst[1])}")
    missed = {}  # a case is scored once per axis of a leave-out eval
    for row in groups["acted"] + groups["did not act"]:
        if row["predicted"] != row["label"]:
            missed.setdefault(case_id(row["case"]), []).append(row["predicted"])
    for case, answers in sorted(missed.items()):
        e = by_id[case]
        print(f"  missed {case} {e['fault']}/{e['magnitude']} as {'/'.join(sorted(set(answers)))} "
              f"({len(answers)}x): {'acted by ' + ', '.join(e['acted_by']) if e['acted'] else 'did not act'}")
    return 0


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = ap.add_subparsers(dest="verb", required=True)
    r = sub.add_parser("run", help="run the healthy twins and write CORPUS/fault-effects.jsonl")
    r.add_argument("--corpus", required=True)
    r.add_argument("--twins", help="folder of the twin runs (default: CORPUS.twins)")
    r.add_argument("--scenario", action="append", choices=sorted(OUTCOMES),
                   help="run only this scenario's twins (repeatable; default: every scenario); the "
                        "measurement covers every run that has a twin")
    r.add_argument("--fault", action="append",
                   help="run only this fault's twins (repeatable; the healthy runs' reseeds always run: they "
                        "set the thresholds)")
    r.add_argument("--timeout", type=float, default=600, help="seconds one twin run may take")
    s = sub.add_parser("score", help="split an eval --json result by whether each fault acted")
    s.add_argument("--corpus", required=True)
    s.add_argument("--eval", required=True, help="output of `cann-debug eval ... --json` on CORPUS's cases")
    a = ap.parse_args()
    return cmd_run(a) if a.verb == "run" else cmd_score(a)


if __name__ == "__main__":
    sys.exit(main())
