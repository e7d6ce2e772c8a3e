#!/usr/bin/env python3
"""Benchmark of online diagnosis: the time from an anomaly window's close to its printed diagnosis and the
CPU it costs, at 10 ms sampling.

Beside a workload that only sleeps (so the CPU measured is the collector's), a scripted NPU (the fake
libdcmi.so) throttles for 1 s every 5 s. Three collectors run, interleaved over --runs rounds:
  plain     cann-debug collect (windows only marked, fusion.json)           the baseline
  diagnose  cann-debug collect --diagnose (each window diagnosed in-process)
  follow    cann-debug collect beside a separate cann-debug diagnose --follow (its own CPU and latency)
CPU is user+sys of the process tree (os.wait4), per wall second. Figures are ratios against the plain
collector of the same round; nothing is asserted (--seconds 4 --runs 1 is the CI smoke run).

  scripts/bench-online-diagnosis.py --build build [--seconds 20] [--runs 3] [--json out.json] [--dcmi LIB]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time


def npu_script(seconds, interval_s):
    every, length = int(5.0 / interval_s), int(1.0 / interval_s)
    incidents = [{"from": start, "to": start + length, "value": 1100}
                 for start in range(int(2.0 / interval_s), int(seconds / interval_s), every)]
    hot = [dict(i, value=97) for i in incidents]
    return {"devices": [{"card": 0, "device": 0, "logic_id": 0, "values": {
        "utilization.2": {"base": 85, "noise": 3, "seed": 1}, "power": {"base": 2800, "noise": 40, "seed": 2},
        "temperature": {"base": 62, "noise": 1, "seed": 3, "anomalies": hot},
        "frequency.7": {"base": 1800, "anomalies": incidents}, "frequency.9": 1800, "hbm.memory_size": 65536,
        "hbm.memory_usage": {"base": 30000, "noise": 200, "seed": 5}, "health": 0}}]}, len(incidents)


def cpu_of(rusage):
    return rusage.ru_utime + rusage.ru_stime


def collect(a, work, name, diagnose, follow):
    run_dir = os.path.join(work, name)
    cmd = [a.binary, "collect", "--sources", "ascend_chip,procfs", "--interval", "10ms",
           "--set", f"ascend_chip.library={a.dcmi}", "--set", "ascend_chip.slow_interval=0",
           "--scenario", "training", "--kb-outcomes", "", "--output", run_dir]
    if diagnose:
        cmd.append("--diagnose")
    cmd += ["--", "/bin/sleep", str(a.seconds)]
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    follower, follower_out = None, os.path.join(work, name + ".follow.jsonl")
    if follow:
        while not os.path.isdir(run_dir) and time.monotonic() - t0 < 10:
            time.sleep(0.01)
        with open(follower_out, "w") as out:
            follower = subprocess.Popen([a.binary, "diagnose", "--follow", run_dir, "--scenario", "training",
                                         "--kb-outcomes", "", "--json"], stdout=out, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    result = {"mode": name.split("-")[0], "wall_s": wall, "cpu_s": cpu_of(usage), "exit": status >> 8}
    with open(os.path.join(run_dir, "fusion.json")) as f:
        fusion = json.load(f)
    result["windows"] = len(fusion.get("anomaly_windows", []))
    if diagnose:
        result["latency_ms"] = fusion["online"].get("latency_ms")
    if follower:
        _, _, f_usage = os.wait4(follower.pid, 0)
        with open(follower_out) as f:
            rows = [json.loads(line) for line in f if line.startswith("{")]
        lat = [r["latency_ms"] for r in rows if r.get("closed_by") == "quiet" and not r.get("late")]
        result["follower"] = {"windows": len(rows), "cpu_s": cpu_of(f_usage),
                              "latency_ms": {"p50": statistics.median(lat), "max": max(lat)} if lat else None}
    return result


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--build", default="build")
    ap.add_argument("--seconds", type=float, default=20.0)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--json")
    ap.add_argument("--dcmi", help="the fake libdcmi.so (default: the build's)")
    a = ap.parse_args()
    a.binary = os.path.join(a.build, "bin", "cann-debug")
    a.dcmi = a.dcmi or os.path.join(a.build, "tests", "samplers", "ascend", "fake_dcmi", "libdcmi.so")
    if not (os.path.exists(a.binary) and os.path.exists(a.dcmi)):
        print(f"error: {a.binary} or {a.dcmi} is missing (build the project and its tests first)", file=sys.stderr)
        return 2
    os.environ.setdefault("CANN_DEBUG_PLUGIN_PATH", os.path.join(a.build, "lib", "cann-debug", "plugins"))
    with tempfile.TemporaryDirectory(prefix="cdbench-online-") as work:
        script, incidents = npu_script(a.seconds, 0.01)
        path = os.path.join(work, "npu.json")
        with open(path, "w") as f:
            json.dump(script, f)
        os.environ["CANN_DEBUG_FAKE_DCMI_SCRIPT"] = path
        rounds = []
        for r in range(a.runs):
            plain = collect(a, work, f"plain-{r}", False, False)
            diag = collect(a, work, f"diagnose-{r}", True, False)
            follow = collect(a, work, f"follow-{r}", False, True)
            rounds.append({"plain": plain, "diagnose": diag, "follow": follow})
            share = lambda x: x["cpu_s"] / x["wall_s"]
            print(f"round {r + 1}: plain {share(plain):.3f} CPU/s ({plain['windows']} windows); "
                  f"--diagnose {share(diag):.3f} CPU/s = {share(diag) / share(plain):.2f}x, latency "
                  f"{diag.get('latency_ms')}; diagnose --follow beside collect: "
                  f"{follow['follower']['cpu_s'] / follow['wall_s']:.3f} CPU/s, latency "
                  f"{follow['follower']['latency_ms']}")
        share = lambda x: x["cpu_s"] / x["wall_s"]
        ratios = [share(x["diagnose"]) / share(x["plain"]) for x in rounds]
        lat = [x["diagnose"]["latency_ms"]["max"] for x in rounds if x["diagnose"].get("latency_ms")]
        extra = [(x["diagnose"]["cpu_s"] - x["plain"]["cpu_s"]) / max(1, x["diagnose"]["windows"]) for x in rounds]
        summary = {"incidents_scripted": incidents, "seconds": a.seconds, "runs": a.runs,
                   "cpu_ratio_diagnose_over_plain_median": statistics.median(ratios),
                   "extra_cpu_s_per_window_median": statistics.median(extra),
                   "latency_ms_max_over_rounds": max(lat) if lat else None, "rounds": rounds}
        print(f"--diagnose costs {statistics.median(ratios):.2f}x the plain collector's CPU (median of {a.runs}), "
              f"{statistics.median(extra):.3f} CPU s per window; worst close-to-print latency "
              f"{summary['latency_ms_max_over_rounds']} ms; {incidents} incidents scripted")
        if a.json:
            with open(a.json, "w") as f:
                json.dump(summary, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
