#!/usr/bin/env python3
"""Writes the small synthetic serving runs used by tests/extractors/inference_features (no copies of shared data).

cold_start_no_config/: 40 requests, Poisson-free regular arrivals every 50 ms on a 2-CPU host, a 2 ms
steady service time, the first request 60 ms (a cold start), 4 profiled served batches with
preprocess/forward/postprocess ranges and a fused (no batch_norm) model; no config.json.
Run: python3 make_fixtures.py   (deterministic; rewrites the folder)
"""
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
T0 = 1800000000.0


def cold_start_no_config(folder):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "metrics.jsonl"), "w") as f:
        for i in range(40):
            latency = 60.0 if i == 0 else (2.5 if i < 3 else 2.0)
            arrival = T0 + 0.05 * i
            f.write(json.dumps({"request_id": i, "time": round(arrival + latency / 1000, 6),
                                "latency_ms": latency, "batch_size": 1}) + "\n")
    with open(os.path.join(folder, "host_metrics.jsonl"), "w") as f:
        for k in range(20):
            t = round(T0 + 0.1 * k, 4)
            rows = [("cpu.utilization", 0.5, {"cpu": "all"}), ("cpu.utilization", 0.5, {"cpu": "0"}),
                    ("cpu.utilization", 0.5, {"cpu": "1"}), ("load.runnable", 2, {}),
                    ("proc.threads", 2, {"role": "server", "pid": 4242}),
                    ("proc.cpu_utilization", 0.3, {"role": "server", "pid": 4242})]
            for name, value, labels in rows:
                f.write(json.dumps({"time": t, "metric": name, "value": value, "labels": labels}) + "\n")
    events = []
    for n in range(4):
        base = n * 70000
        forward = 55000 if n == 0 else 1500
        ev = [("ProfilerStep#%d" % n, base, 49000 if n else 58000), ("preprocess", base + 10, 200),
              ("forward", base + 300, forward), ("forward", base + 310, forward - 20),
              ("aten::linear", base + 320, forward // 2), ("aten::relu_", base + 330 + forward // 2, 50),
              ("postprocess", base + 400 + forward, 50)]
        events += [{"name": name, "ph": "X", "ts": ts, "dur": dur, "tid": 1, "pid": "CPU functions", "args": {}}
                   for name, ts, dur in ev]
    with open(os.path.join(folder, "trace.json"), "w") as f:
        json.dump(events, f)


if __name__ == "__main__":
    cold_start_no_config(os.path.join(HERE, "cold_start_no_config"))
