#!/usr/bin/env python3
"""Writes the small hand-designed 2-rank runs used by tests/features_distributed and tests/traces.

straggler_2ranks/: rank 1 spends 30 ms per step in data_loading, rank 0 waits for it inside the gradient
allreduce (gloo:all_reduce on a backend thread). Every figure is chosen so the expected features can be
worked out by hand (see tests/features_distributed/fixture_run_test.cpp):
  rank 0: step 50 ms, data_loading 1, forward 5, backward 39 (autograd 10 incl. a 0.2 ms c10d call),
          optimizer 1, collective 33.9 ms (fully inside backward), outside the model 5 ms
  rank 1: step 50 ms, data_loading 30, forward 5, backward 10, optimizer 1, collective 4.9 ms, outside 34 ms
Files follow PyTorch 1.13's legacy exporter (a bare JSON array, integer microseconds from the profiler start).
Run: python3 make_fixtures.py   (from this folder)
"""
import json
import os

STEP_US = 50_000


def ev(name, ts, dur, tid=1):
    return {"name": name, "ph": "X", "ts": ts, "dur": dur, "tid": tid, "pid": "CPU functions", "args": {}}


def rank_events(rank, step, t0):
    e = [ev(f"ProfilerStep#{step}", t0, STEP_US)]
    if rank == 0:
        e += [ev("data_loading", t0, 1000), ev("forward", t0 + 1000, 5000),
              ev("backward", t0 + 6000, 39000),
              ev("autograd::engine::evaluate_function: AddmmBackward0", t0 + 6000, 10000),
              ev("c10d::allreduce_", t0 + 10000, 200),
              ev("gloo:all_reduce", t0 + 10100, 33900, tid=2)]
    else:
        e += [ev("data_loading", t0, 30000), ev("forward", t0 + 30000, 5000),
              ev("backward", t0 + 35000, 10000),
              ev("autograd::engine::evaluate_function: AddmmBackward0", t0 + 35000, 10000),
              ev("c10d::allreduce_", t0 + 39000, 200),
              ev("gloo:all_reduce", t0 + 39100, 4900, tid=2)]
    e += [ev("optimizer_step", t0 + 45000, 1000), ev("aten::add_", t0 + 45100, 50)]
    return e


def main():
    out = "straggler_2ranks"
    os.makedirs(out, exist_ok=True)
    for rank in (0, 1):
        events = []
        for i, step in enumerate((1, 2)):
            events += rank_events(rank, step, 100 + i * STEP_US)
        with open(f"{out}/rank{rank}.trace.json", "w") as f:
            f.write("[\n" + ",\n".join(json.dumps(e) for e in events) + "\n]\n")
    with open(f"{out}/metrics.jsonl", "w") as f:
        for step in range(3):
            for rank in (0, 1):
                f.write(json.dumps({"step": step, "time": 1700000000.0 + 0.05 * step, "rank": rank,
                                    "loss": 1.0, "batch_size": 32}) + "\n")
    with open(f"{out}/config.json", "w") as f:
        json.dump({"scenario": "distributed", "world_size": 2, "param_bytes": 1000000}, f)


if __name__ == "__main__":
    main()
