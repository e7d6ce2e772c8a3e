#!/usr/bin/env python3
"""Benchmark of distributed diagnosis at scale: the 16-rank Ascend GPT-3 profile of ../shared scaled to
thousands of ranks (data-parallel replicas of its ranks, each jittered: inject-ascend-cluster-faults.py
--ranks), healthy and with one straggler, diagnosed by `cann-debug diagnose`.

For every rank count it reports the median wall time of --runs diagnoses (the process from start to exit:
reading, features, inference, report), its ratio to the smallest count measured in the same run, the
file sizes, and whether the verdict is right (healthy / straggler_rank naming the injected rank). Nothing
is asserted: the figures are for the notes (docs/features-distributed.md, "Scale").

  scripts/bench-cluster-scale.py --build build [--ranks 16,256,1024,4096] [--runs 5] [--json out.json]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_INPUT = os.path.join(HERE, "..", "..", "shared", "real", "ascend", "msinsight_gpt3_16rank_pp2")


def inject(profile, ranks, fault, seed, out):
    cmd = [sys.executable, os.path.join(HERE, "inject-ascend-cluster-faults.py"), "--input", profile,
           "--ranks", str(ranks), "--fault", fault, "--seed", str(seed), "--output", out]
    return json.loads(subprocess.run(cmd, check=True, capture_output=True, text=True).stdout)


def diagnose(binary, case, env):
    t0 = time.monotonic()
    p = subprocess.run([binary, "diagnose", "--input", case, "--json"], capture_output=True, text=True, env=env)
    wall = time.monotonic() - t0
    if p.returncode != 0:
        sys.exit(f"{case}: cann-debug diagnose failed: {p.stderr.strip()[-400:]}")
    return wall, json.loads(p.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("--build", default="build", help="the build folder (bin/cann-debug, lib/cann-debug/plugins)")
    ap.add_argument("--input", default=DEFAULT_INPUT, help="an msprof-analyze cluster folder")
    ap.add_argument("--ranks", default="16,256,1024,4096", help="rank counts, multiples of the recorded ranks")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", help="write the figures here too")
    a = ap.parse_args()
    if not os.path.isdir(os.path.join(a.input, "cluster_analysis_output")):
        print(f"bench-cluster-scale: {a.input}: no cluster profile (../shared absent?); nothing measured")
        return
    binary = os.path.join(a.build, "bin", "cann-debug")
    env = dict(os.environ, CANN_DEBUG_PLUGIN_PATH=os.path.join(a.build, "lib", "cann-debug", "plugins"))
    rows = []
    with tempfile.TemporaryDirectory(prefix="cdbench-scale-") as work:
        for n in (int(x) for x in a.ranks.split(",")):
            for fault in ("none", "straggler_rank"):
                case = os.path.join(work, f"{fault}-{n}")
                expected = inject(a.input, n, fault, 1, case)
                diagnose(binary, case, env)  # warm the page cache and the plugin loads
                walls, doc = [], None
                for _ in range(a.runs):
                    wall, doc = diagnose(binary, case, env)
                    walls.append(wall)
                top = doc["root_causes"][0]
                late = doc.get("details", {}).get("who_waited_for_whom", {}).get("late_rank")
                want = expected["root_cause"]
                right = top["id"] == want and (want != "straggler_rank" or late == expected["fault_params"]["rank"])
                size = sum(os.path.getsize(os.path.join(b, f)) for b, _, fs in os.walk(case) for f in fs)
                rows.append({"ranks": n, "fault": fault, "median_ms": 1000 * statistics.median(walls),
                             "bytes": size, "verdict": top["id"], "confidence": round(top["confidence"], 3),
                             "late_rank": late, "right": right})
    base = {r["fault"]: r["median_ms"] for r in rows if r["ranks"] == rows[0]["ranks"]}
    print(f"{'ranks':>6} {'fault':<15} {'median ms':>10} {'x smallest':>10} {'MB':>7}  verdict")
    for r in rows:
        r["ratio"] = round(r["median_ms"] / base[r["fault"]], 2)
        print(f"{r['ranks']:>6} {r['fault']:<15} {r['median_ms']:>10.1f} {r['ratio']:>10.2f} "
              f"{r['bytes'] / 1e6:>7.2f}  {r['verdict']} {r['confidence']}"
              f"{' (rank %s)' % int(r['late_rank']) if r['late_rank'] is not None else ''}"
              f"{'' if r['right'] else '  WRONG'}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
