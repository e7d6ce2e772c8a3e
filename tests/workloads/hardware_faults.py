#!/usr/bin/python3
"""End to end: a real PyTorch workload runs under `cann-debug collect -- COMMAND` beside the real samplers
reading the fake DCMI / NVML libraries, scripted so that the device throttles, HBM fills or a RoCE port storms
PFC pauses partway through; `cann-debug diagnose` of the run folder must name the hardware cause and the
steps its window overlapped (those whose logged time falls in it), and the same workload on a scripted
healthy device must stay healthy. The host's own CPUs are the fifth: the real procfs sampler beside the
workload while busy processes (twice as many as cores) take the CPUs must give host_input_bound, and
without them healthy. Exits 77 (CTest: skipped) without torch/sklearn.

  /usr/bin/python3 tests/workloads/hardware_faults.py --bin build/bin/cann-debug --work /tmp/hw \\
      --dcmi build/tests/samplers/ascend/fake_dcmi/libdcmi.so --nvml build/.../fake_nvml/libnvidia-ml.so
"""
import json
import os
import subprocess
import sys

import script_support as support
from script_support import ROOT

FROM = 16  # the sample (50 ms apart) from which the scripted fault holds: 0.8 s into the run, to its end


def npu(values):
    base = {"utilization.2": {"base": 85, "noise": 3, "seed": 1}, "power": {"base": 2800, "noise": 40, "seed": 2},
            "temperature": {"base": 62, "noise": 1, "seed": 3}, "frequency.7": 1800, "frequency.9": 1800,
            "hbm.memory_size": 65536, "hbm.memory_usage": {"base": 30000, "noise": 200, "seed": 5}, "health": 0,
            "netdev.mac_tx_total_pkt_num": {"base": 0, "step": 5000},
            "netdev.mac_rx_total_pkt_num": {"base": 0, "step": 5000},
            "netdev.mac_rx_pfc_pkt_num": {"base": 0, "step": 1}}
    base.update(values)
    return {"devices": [{"card": 0, "device": 0, "logic_id": 0, "values": base}]}


THROTTLE = {"frequency.7": {"base": 1800, "anomalies": [{"from": FROM, "value": 1100}]},
            "temperature": {"base": 62, "noise": 1, "seed": 3, "anomalies": [{"from": FROM, "value": 97}]},
            "power": {"base": 2800, "noise": 40, "seed": 2, "anomalies": [{"from": FROM, "scale": 0.7}]}}
HBM_FULL = {"hbm.memory_usage": {"base": 30000, "noise": 200, "seed": 5,
                                 "anomalies": [{"from": FROM, "value": 65300}]}}
# The received PFC counter climbs 500x faster from FROM on: ~10k pauses/s against 200k packets/s.
PFC_STORM = {"netdev.mac_rx_pfc_pkt_num": {"base": 0, "step": 1, "anomalies": [{"from": FROM, "scale": 500}]}}
GPU_THROTTLE = {"devices": [{"name": "NVIDIA A100-SXM4-80GB", "metrics": {
    "utilization.gpu": 97, "utilization.memory": 40, "memory.total": 85899345920, "memory.used": 42949672960,
    "power": {"base": 390000, "anomalies": [{"from": FROM, "value": 250000}]},
    "clock.sm": {"base": 1410, "anomalies": [{"from": FROM, "value": 885}]},
    "temperature": {"base": 70, "anomalies": [{"from": FROM, "value": 91}]}}}]}

# Seed 6: a run of this configuration the training diagnosis reads as healthy without any recording (with
# seed 5, or 1500 steps, it reads a loss_spike there, a training-diagnosis false alarm that has nothing to do with hardware).
TRAIN = ["train.py", "--fault", "none", "--magnitude", "medium", "--set", "steps=800", "--set", "batch_size=32"]
DDP = ["ddp.py", "--fault", "none", "--magnitude", "medium", "--set", "steps=60"]

# (name, workload argv, sampler, fake script, expected root cause, feature that must carry the window)
RUNS = [
    ("npu-throttled", TRAIN, "ascend_chip", npu(THROTTLE), "device_throttling", "hw.device.clock_drop"),
    ("npu-healthy", TRAIN, "ascend_chip", npu({}), "healthy", None),
    ("hbm-full", TRAIN, "ascend_chip", npu(HBM_FULL), "memory_pressure", "hw.memory.peak_utilization"),
    ("gpu-throttled", TRAIN, "nvml", GPU_THROTTLE, "device_throttling", "hw.device.clock_drop"),
    ("roce-pfc-storm", DDP, "roce", npu(PFC_STORM), "network_congestion", "hw.network.congestion_ratio"),
    ("roce-healthy", DDP, "roce", npu({}), "healthy", None),
    # The real /proc: "hogs" starts busy processes beside the workload for the whole run.
    ("host-starved", TRAIN, "procfs", "hogs", "host_input_bound", "hw.host.cpu_starved_share"),
    ("host-free", TRAIN, "procfs", None, "healthy", None),
]


def start_hogs():
    """Busy processes, two per core, that take the CPUs from the workload until killed."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]


def logged_steps(folder):
    """(time ns, step) of every row of the run's metrics.jsonl files."""
    rows = []
    for dirpath, _, files in os.walk(folder):
        for name in files:
            if name == "metrics.jsonl":
                with open(os.path.join(dirpath, name)) as f:
                    for line in f:
                        r = json.loads(line)
                        if "time" in r and "step" in r:
                            rows.append((int(r["time"] * 1e9), int(r["step"])))
    return sorted(rows)


def check_window(folder, features_path, feature, failures):
    """The feature's window names the steps whose rows were logged in it (and the one running at its end)."""
    found = None
    with open(features_path) as f:
        for line in f:
            doc = json.loads(line)
            for feat in doc.get("payload", doc).get("features", []):
                if feat["name"] == feature:
                    found = feat
    if not found:
        failures.append(f"{folder}: no feature {feature} in {features_path}")
        return
    windows = [e for e in found.get("evidence", []) if e.get("kind") == "window"]
    if not windows:
        failures.append(f"{folder}: {feature} has no window evidence: {found}")
        return
    w = windows[0]
    rows = logged_steps(folder)
    inside = [s for t, s in rows if w["start_ns"] <= t <= w["end_ns"]]
    after = [s for t, s in rows if t > w["end_ns"]]
    want = sorted(set(inside + after[:1]))
    if want and (w.get("first_step") != want[0] or w.get("last_step") != want[-1]):
        failures.append(f"{folder}: {feature} window {w} should name steps {want[0]}-{want[-1]}")
    print(f"    window: {w['id']} (steps {w.get('first_step')}-{w.get('last_step')} of {rows[-1][1] if rows else '?'})")


# Online: the clock drops for 0.8 s (samples 50-66, 50 ms apart: 2.5 s into the run, once torch has loaded and
# training runs) and recovers.
ONLINE_FROM, ONLINE_TO = 50, 66
THROTTLE_ONCE = {"frequency.7": {"base": 1800, "anomalies": [{"from": ONLINE_FROM, "to": ONLINE_TO, "value": 1100}]},
                 "temperature": {"base": 62, "noise": 1, "seed": 3,
                                 "anomalies": [{"from": ONLINE_FROM, "to": ONLINE_TO, "value": 97}]}}


def check_online(a, failures):
    """collect --diagnose: the throttle's windows are diagnosed as device_throttling while training runs, and
    the evidence names steps logged inside the throttle."""
    name = "npu-throttled-online"
    folder = os.path.join(a.work, name)
    script_path = os.path.join(a.work, name + ".json")
    with open(script_path, "w") as f:
        json.dump(npu(THROTTLE_ONCE), f)
    env = dict(os.environ, CANN_DEBUG_FAKE_DCMI_SCRIPT=script_path)
    cmd = [a.bin, "collect", "--sources", "ascend_chip", "--interval", "50ms", "--set", f"ascend_chip.library={a.dcmi}",
           "--set", "ascend_chip.slow_interval=0", "--diagnose", "--scenario", "training", "--kb-outcomes", "",
           "--output", folder, "--", sys.executable, os.path.join(ROOT, "workloads", TRAIN[0])] + TRAIN[1:] + \
          ["--set", "steps=8000", "--seed", "6"]  # steps take ~0.7 ms: training from ~1 s to ~7 s
    run = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if run.returncode != 0:
        failures.append(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()[-800:]}")
        return
    rows = []
    path = os.path.join(folder, "diagnoses.jsonl")
    if os.path.exists(path):
        with open(path) as f:
            rows = [json.loads(line) for line in f]
    device = [r for r in rows if any(s["name"].startswith("npu.") for s in r["series"])]
    for r in device:
        d = r.get("diagnosis", {})
        steps = [(e.get("first_step"), e.get("last_step")) for e in d.get("evidence", []) if e.get("first_step", -1) >= 0]
        print(f"{name}: window {r['window']} ({r['closed_by']}) => {d.get('top_cause')} "
              f"{d.get('confidence', 0):.2f}, steps {steps[:1]}, printed {r.get('latency_ms', 0):.0f} ms after it closed")
        if d.get("top_cause") != "device_throttling":
            failures.append(f"{folder}: window {r['window']} diagnosed {d.get('top_cause')}: {r}")
    if not device:
        failures.append(f"{folder}: no window of the NPU's series in {path}: {rows}")
    named = [e for r in device for e in r.get("diagnosis", {}).get("evidence", [])
             if r["diagnosis"].get("evidence_in_window") and e.get("first_step", -1) >= 0]
    if not named:
        failures.append(f"{folder}: no diagnosis names the steps inside its window: {device}")


def main():
    a = support.arguments(__doc__.splitlines()[0], [("--dcmi", "the fake libdcmi.so"),
                                                    ("--nvml", "the fake libnvidia-ml.so")])
    if not support.have_torch():
        return support.SKIP
    support.fresh(a.work)
    failures = []
    for name, workload, sampler, script, expected, feature in RUNS:
        folder = os.path.join(a.work, name)
        env = dict(os.environ)
        cmd = [a.bin, "collect", "--sources", sampler, "--interval", "50ms", "--output", folder]
        if isinstance(script, dict):  # a fake library's script
            script_path = os.path.join(a.work, name + ".json")
            with open(script_path, "w") as f:
                json.dump(script, f)
            env.update(CANN_DEBUG_FAKE_DCMI_SCRIPT=script_path, CANN_DEBUG_FAKE_NVML_SCRIPT=script_path)
            cmd += ["--set", f"{sampler}.library={a.nvml if sampler == 'nvml' else a.dcmi}"]
        if sampler in ("ascend_chip", "nvml"):  # temperature every sample too
            cmd += ["--set", f"{sampler}.slow_interval=0"]
        if sampler == "roce":
            cmd += ["--set", "roce.rdma_sysfs=false"]
        cmd += ["--", sys.executable, os.path.join(ROOT, "workloads", workload[0])] + workload[1:] + ["--seed", "6"]
        hogs = start_hogs() if script == "hogs" else []
        try:
            run = subprocess.run(cmd, capture_output=True, text=True, env=env)
        finally:
            for h in hogs:
                h.kill()
                h.wait()
        if run.returncode != 0:
            failures.append(f"{' '.join(cmd)}: exit {run.returncode}: {run.stderr.strip()[-800:]}")
            continue
        out = os.path.join(a.work, name + "-diagnosis")
        diag = subprocess.run([a.bin, "diagnose", "--input", folder, "--output", out, "--json"], capture_output=True,
                              text=True)
        if diag.returncode != 0:
            failures.append(f"{folder}: diagnose exit {diag.returncode}: {diag.stderr.strip()[-800:]}")
            continue
        doc = json.loads(diag.stdout)
        got = doc["root_causes"][0]["id"]
        print(f"{name}: {workload[0]} beside {sampler}: diagnosed {got} ({doc['root_causes'][0]['confidence']:.2f}), "
              f"expected {expected}")
        if got != expected:
            failures.append(f"{folder}: diagnosed {got}, expected {expected} "
                            f"(ranked {[(c['id'], round(c['confidence'], 3)) for c in doc['root_causes']]})")
        if feature:
            check_window(folder, os.path.join(out, "features.jsonl"), feature, failures)
    check_online(a, failures)
    return support.report(failures)


if __name__ == "__main__":
    sys.exit(main())
