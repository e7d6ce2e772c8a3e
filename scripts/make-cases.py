#!/usr/bin/python3
"""Generates a labelled case corpus by running the workloads over a named matrix, with fixed seeds.

  /usr/bin/python3 scripts/make-cases.py --matrix training --output corpus/
  /usr/bin/python3 scripts/make-cases.py --matrix default --output corpus/ --runs-per-cause 2   # small set
  /usr/bin/python3 scripts/make-cases.py --matrix training --list                               # plan only
  /usr/bin/python3 scripts/make-cases.py --matrix novel-training --seed 9400 --output probe/     # a fresh draw

A matrix (workloads/matrices/NAME.json, or a path) names a workload, its causes, and variant axes:

  {"name": "training", "workload": "train.py", "scenario": "training", "seed": 1000,
   "runs_per_cause": 40, "magnitudes": ["weak", "medium", "strong"],
   "axes": {"optimizer": {"key": "optimizer.name", "values": ["sgd", "adam"]},
            "model": {"values": [{"name": "cnn", "set": {"model.type": "cnn", "model.width": 16}}]}},
   "fixed": {"steps": 200},
   "causes": {"none": {}, "batch_too_small": {"skip_axes": ["batch"]},
              "unshuffled_data": {"axes": {"order": {"key": "data_order", "values": ["sorted_by_label"]}}}}}

or includes others: {"name": "default", "include": ["training", "inference", "distributed"]}.

Run i of a cause takes magnitude i mod 3 and, on every axis, the value at i of a seeded permutation of the
axis' values repeated (each value is used about equally often, combinations vary). Every run is
`workload --fault CAUSE --magnitude M --seed S --set KEY=VALUE... --output DIR/<scenario>/<matrix>-<NNNN>`;
axis and fixed sets are `--set`s, so they are applied after the fault (a cause lists the axes that would undo
its fault in `skip_axes` or replaces their values). The generator is sequential (the runs measure time) and
resumable: a folder whose expected.json exists is done and skipped; a failed run is logged to
DIR/failures.jsonl and its folder removed. Causes take turns, so a corpus stopped half-way is balanced.

The runs measure time (latencies, step times, overlap), so a run made beside a compiler is another run: on a
2-core machine, inference and distributed cases made beside a build lost 7 and 1 points of leave-family-out
accuracy and gained 4 and 5 healthy false alarms. Before each run the generator samples the share of the
machine's CPU time that other processes use (/proc/stat over a quarter second) and, above --quiet-share,
waits for the machine to calm down (up to --quiet-wait seconds, then runs anyway and says so). Each case's
expected.json records it: "generation": {"background_cpu_share", "waited_s"}.
"""
import argparse
import json
import os
import random
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MATRICES = os.path.join(ROOT, "workloads", "matrices")


def load_matrix(name):
    path = name if os.path.sep in name or name.endswith(".json") else os.path.join(MATRICES, name + ".json")
    if not os.path.exists(path):
        known = sorted(f[:-5] for f in os.listdir(MATRICES) if f.endswith(".json"))
        raise SystemExit(f"error: matrix {name!r}: no {path} (known: {', '.join(known)})")
    with open(path) as f:
        try:
            doc = json.load(f)
        except ValueError as e:
            raise SystemExit(f"error: {path}: {e}")
    if "include" in doc:
        out = []
        for sub in doc["include"]:
            out += load_matrix(sub)
        return out
    for key in ("name", "workload", "scenario", "causes"):
        if key not in doc:
            raise SystemExit(f"error: {path}: missing key {key!r}")
    return [doc]


def axis_value(value):
    """(name, {key: value}) of one axis value: a scalar on the axis key, or {"name", "set"}."""
    if isinstance(value, dict) and "set" in value:
        return str(value.get("name", json.dumps(value["set"], sort_keys=True))), dict(value["set"])
    return None, value


def plan(matrix, runs_per_cause=None, seed=None):
    """The runs of one matrix. `seed` replaces the matrix' own seed: the same distribution drawn afresh (other
    axis combinations, data, initialisations), its run ids named `<matrix>-<seed>-NNNN` so that they never
    collide with the matrix' own runs."""
    runs = []
    rng_seed = int(matrix.get("seed", 0)) if seed is None else int(seed)
    prefix = matrix["name"] if seed is None else f"{matrix['name']}-{rng_seed}"
    magnitudes = matrix.get("magnitudes", ["weak", "medium", "strong"])
    n_runs = int(runs_per_cause or matrix.get("runs_per_cause", 10))
    index = 0
    for cause, spec in matrix["causes"].items():
        spec = spec or {}
        axes = dict(matrix.get("axes", {}))
        axes.update(spec.get("axes", {}))
        for skip in spec.get("skip_axes", []):
            axes.pop(skip, None)
        n = int(spec.get("runs", n_runs))
        perms = {}
        for axis, a in sorted(axes.items()):
            values = list(a["values"])
            seq = (values * (n // max(1, len(values)) + 1))[:max(n, len(values))]
            random.Random(f"{rng_seed}/{cause}/{axis}").shuffle(seq)
            perms[axis] = seq
        for i in range(n):
            sets, variant = dict(matrix.get("fixed", {})), {}
            for axis, a in sorted(axes.items()):
                name, value = axis_value(perms[axis][i])
                if name is None:
                    sets[a["key"]] = value
                    variant[axis] = value
                else:
                    sets.update(value)
                    variant[axis] = name
            runs.append({
                "id": f"{prefix}-{index:04d}",
                "round": i,
                "scenario": matrix["scenario"],
                "workload": matrix["workload"],
                "fault": cause,
                "magnitude": "medium" if cause == "none" else magnitudes[i % len(magnitudes)],
                "seed": rng_seed + index,
                "sets": sets,
                "axes": variant,
            })
            index += 1
    return runs


def write_plan(path, runs):
    """Writes the plan, keeping the runs an earlier invocation planned into the same corpus (another matrix,
    `--only`): a corpus built in pieces keeps one plan of every run in it, which scripts that rerun a case's
    command (measure-fault-effect.py) read."""
    kept = []
    if os.path.exists(path):
        ids = {r["id"] for r in runs}
        with open(path) as f:
            kept = [r for r in (json.loads(line) for line in f if line.strip()) if r["id"] not in ids]
    with open(path + ".tmp", "w") as f:
        for r in kept + runs:
            f.write(json.dumps(r) + "\n")
    os.replace(path + ".tmp", path)


def cpu_times(stat_text):
    """(busy, total) jiffies of the machine from the text of /proc/stat (its first, aggregate `cpu` line)."""
    for line in stat_text.splitlines():
        fields = line.split()
        if fields and fields[0] == "cpu":
            values = [int(v) for v in fields[1:]]
            idle = values[3] + (values[4] if len(values) > 4 else 0)  # idle + iowait
            return sum(values[:8]) - idle, sum(values[:8])  # guest time is already in user and nice
    raise ValueError("/proc/stat: no aggregate 'cpu' line")


def busy_share(read_stat, interval, sleep=time.sleep):
    """Share of all CPUs' time spent busy over `interval` seconds (0..1), from two /proc/stat readings;
    None where /proc/stat cannot be read (not Linux)."""
    try:
        busy0, total0 = cpu_times(read_stat())
        sleep(interval)
        busy1, total1 = cpu_times(read_stat())
    except (OSError, ValueError):
        return None
    return (busy1 - busy0) / (total1 - total0) if total1 > total0 else 0.0


def wait_until_quiet(sample, limit, max_wait, poll=5.0, sleep=time.sleep, clock=time.monotonic):
    """Waits while `sample()` (the busy share) exceeds `limit`, up to `max_wait` seconds: returns (the last
    share, seconds waited, whether the machine was quiet)."""
    start = clock()
    share = sample()
    while share is not None and share > limit and clock() - start < max_wait:
        sleep(min(poll, max_wait - (clock() - start)))
        share = sample()
    return share, clock() - start, share is None or share <= limit


def read_proc_stat():
    with open("/proc/stat") as f:
        return f.read()


def command(run, folder):
    cmd = [sys.executable, os.path.join(ROOT, "workloads", run["workload"]), "--fault", run["fault"],
           "--magnitude", run["magnitude"], "--seed", str(run["seed"]), "--output", folder]
    for key, value in run["sets"].items():
        cmd += ["--set", f"{key}={json.dumps(value) if not isinstance(value, str) else value}"]
    return cmd


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--matrix", required=True, help="matrix name (workloads/matrices/NAME.json) or path")
    ap.add_argument("--output", help="corpus folder (created); runs go to OUTPUT/<scenario>/<id>")
    ap.add_argument("--runs-per-cause", type=int, help="override the matrix' runs per cause (small sets)")
    ap.add_argument("--only", action="append", default=[], help="only these causes (repeatable)")
    ap.add_argument("--seed", type=int,
                    help="draw the matrix afresh with this seed instead of its own: a probe set of the same "
                         "distribution that no table or threshold was tuned on (ids <matrix>-<seed>-NNNN)")
    ap.add_argument("--timeout", type=float, default=600, help="seconds one run may take")
    ap.add_argument("--list", action="store_true", help="print the plan as JSON lines and exit")
    ap.add_argument("--quiet-share", type=float, default=0.25,
                    help="wait before a run while other processes use more than this share of the CPUs")
    ap.add_argument("--quiet-wait", type=float, default=900, help="seconds to wait for a quiet machine")
    a = ap.parse_args()
    runs = []
    for m in load_matrix(a.matrix):
        runs += plan(m, a.runs_per_cause, a.seed)
    if a.only:
        runs = [r for r in runs if r["fault"] in a.only or (r["fault"] == "none" and "healthy" in a.only)]
    # Causes take turns (run 0 of every cause, then run 1, ...), so a corpus stopped half-way is balanced.
    runs.sort(key=lambda r: r["round"])
    if a.list:
        for r in runs:
            print(json.dumps(r))
        return
    if not a.output:
        ap.error("--output is required unless --list")
    os.makedirs(a.output, exist_ok=True)
    write_plan(os.path.join(a.output, "plan.jsonl"), runs)
    started, done_now, failed = time.time(), 0, 0
    for k, run in enumerate(runs, 1):
        folder = os.path.join(a.output, run["scenario"], run["id"])
        if os.path.exists(os.path.join(folder, "expected.json")):
            continue
        if os.path.exists(folder):
            shutil.rmtree(folder)  # a run that was interrupted: start it again
        share, waited, quiet = wait_until_quiet(lambda: busy_share(read_proc_stat, 0.25), a.quiet_share,
                                                a.quiet_wait)
        if not quiet:
            print(f"make-cases: {run['id']}: other processes use {100 * share:.0f}% of the CPUs after "
                  f"{waited:.0f} s of waiting; running anyway (its timings are not those of a quiet machine)",
                  file=sys.stderr, flush=True)
        t0 = time.time()
        try:
            proc = subprocess.run(command(run, folder), capture_output=True, text=True, timeout=a.timeout)
            ok, why = proc.returncode == 0, proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
        except subprocess.TimeoutExpired:
            ok, why = False, [f"timed out after {a.timeout:.0f} s"]
        took = time.time() - t0
        if ok and os.path.exists(os.path.join(folder, "expected.json")):
            with open(os.path.join(folder, "expected.json")) as f:
                expected = json.load(f)
            expected.setdefault("variant", {}).update({f"matrix.{k2}": v for k2, v in run["axes"].items()})
            expected["variant"]["matrix.magnitude"] = "none" if run["fault"] == "none" else run["magnitude"]
            expected["variant"]["matrix"] = run["id"].rsplit("-", 1)[0]
            if share is not None:
                expected["generation"] = {"background_cpu_share": round(share, 3), "waited_s": round(waited, 1)}
            with open(os.path.join(folder, "expected.json"), "w") as f:
                json.dump(expected, f, indent=2)
                f.write("\n")
            done_now += 1
        else:
            failed += 1
            shutil.rmtree(folder, ignore_errors=True)
            with open(os.path.join(a.output, "failures.jsonl"), "a") as f:
                f.write(json.dumps({**run, "error": why[0]}) + "\n")
        elapsed = time.time() - started
        left = len(runs) - k
        eta = elapsed / max(1, done_now + failed) * left
        print(f"[{k}/{len(runs)}] {run['id']} {run['fault']}/{run['magnitude']} "
              f"{'ok' if ok else 'FAILED: ' + why[0]} {took:.1f}s  (eta {eta / 60:.0f} min)", flush=True)
    print(f"make-cases: {done_now} runs written, {failed} failed, {len(runs)} in the plan -> {a.output}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
