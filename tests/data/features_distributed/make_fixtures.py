#!/usr/bin/env python3
"""Writes the small hand-designed 2-rank runs used by tests/extractors/distributed_features and tests/readers/chrome_trace.

straggler_2ranks/: rank 1 spends 30 ms per step in data_loading, rank 0 waits for it inside the gradient
allreduce (gloo:all_reduce on a backend thread). Every figure is chosen so the expected features can be
worked out by hand (see tests/extractors/distributed_features/fixture_run_test.cpp):
  rank 0: step 50 ms, data_loading 1, forward 5, backward 39 (autograd 10 incl. a 0.2 ms c10d call),
          optimizer 1, collective 33.9 ms (fully inside backward), outside the model 5 ms
  rank 1: step 50 ms, data_loading 30, forward 5, backward 10, optimizer 1, collective 4.9 ms, outside 34 ms
Files follow PyTorch 1.13's legacy exporter (a bare JSON array, integer microseconds from the profiler start).

kineto_gpu_straggler/: the GPU counterpart, two Kineto files (rank-<N>.fixture.pt.trace.json, rank from
distributedInfo) with device kernels. Rank 1 spends 40 ms per 100 ms step loading data on the host, so its GPU
idles and rank 0's NCCL allreduce kernel waits for it (times in ms from the step start):
  rank 0: forward kernel 1..11, backward 11..31, ncclKernel_AllReduce 21..76 (stream 20), optimizer 76..80
  rank 1: forward 41..51, backward 51..71, ncclKernel_AllReduce 61..76, optimizer 76..80
  -> NCCL time 55 / 15 ms, exposed (not under compute) 45 / 5 ms, compute 34 / 34 ms,
     GPU busy 79 / 39 ms, GPU idle 21 / 61 ms, 1 NCCL kernel per step, late rank 1.
The CPU side has ProfilerStep#N, data_loading and an asynchronous nccl:all_reduce range (0.1 ms), and a
cudaLaunchKernel (cuda_runtime, same correlation id) for every kernel; the GPU has Kineto's copy of the
ProfilerStep range (gpu_user_annotation), which must not count as a step.
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
    write_kineto()


GPU_STEP_US = 100_000
# (kernel, stream, start ms, end ms) per rank, relative to the step start; see the module docstring.
GPU_KERNELS = {
    0: [("volta_sgemm_128x64_nn", 7, 1, 11), ("volta_sgemm_64x64_nt", 7, 11, 31),
        ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ncclWorkElem*)", 20, 21, 76),
        ("void at::native::multi_tensor_apply_kernel<Adam>", 7, 76, 80)],
    1: [("volta_sgemm_128x64_nn", 7, 41, 51), ("volta_sgemm_64x64_nt", 7, 51, 71),
        ("ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ncclWorkElem*)", 20, 61, 76),
        ("void at::native::multi_tensor_apply_kernel<Adam>", 7, 76, 80)],
}
GPU_LOADING_MS = {0: 0, 1: 40}


def kineto_rank_events(rank, step, t0, corr0):
    cpu = dict(pid=1000 + rank, tid=1000 + rank)
    e = [dict(ph="X", cat="user_annotation", name=f"ProfilerStep#{step}", ts=float(t0), dur=float(GPU_STEP_US),
              args={}, **cpu),
         dict(ph="X", cat="gpu_user_annotation", name=f"ProfilerStep#{step}", ts=float(t0 + 1000),
              dur=float(GPU_STEP_US - 1000), pid=rank, tid=7, args={"device": rank, "stream": 7})]
    if GPU_LOADING_MS[rank]:
        e.append(dict(ph="X", cat="user_annotation", name="data_loading", ts=float(t0),
                      dur=float(GPU_LOADING_MS[rank] * 1000), args={}, **cpu))
    for k, (name, stream, start_ms, end_ms) in enumerate(GPU_KERNELS[rank]):
        corr = corr0 + k
        launch = t0 + start_ms * 1000 - 500  # the host queues each kernel 0.5 ms before it runs
        e.append(dict(ph="X", cat="cuda_runtime", name="cudaLaunchKernel", ts=float(launch), dur=10.0,
                      args={"correlation": corr, "External id": corr}, **cpu))
        if stream == 20:
            e.append(dict(ph="X", cat="user_annotation", name="nccl:all_reduce", ts=float(launch - 50), dur=100.0,
                          args={}, **cpu))
        e.append(dict(ph="X", cat="kernel", name=name, pid=rank, tid=stream, ts=float(t0 + start_ms * 1000),
                      dur=float((end_ms - start_ms) * 1000),
                      args={"device": rank, "stream": stream, "correlation": corr, "External id": corr}))
    return e


def write_kineto():
    out = "kineto_gpu_straggler"
    os.makedirs(out, exist_ok=True)
    for rank in (0, 1):
        events = []
        for i, step in enumerate((1, 2)):
            events += kineto_rank_events(rank, step, 1_700_000_000_000_000 + i * GPU_STEP_US, 100 * (i + 1))
        doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank, "world_size": 2},
               "traceEvents": events}
        with open(f"{out}/rank-{rank}.fixture.pt.trace.json", "w") as f:
            f.write(json.dumps(doc, indent=0) + "\n")


if __name__ == "__main__":
    main()
