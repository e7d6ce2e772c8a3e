#!/usr/bin/python3
"""Data-parallel training on localhost (PyTorch gloo), with a fault injector: a case folder of the
`distributed` scenario of the cann-debug case corpus (shared/cases/FORMAT.md).

The launcher (this process) builds the configuration, injects the fault, applies `--set`, then starts
`world_size` rank processes (torch.multiprocessing, spawn) that join one gloo process group on 127.0.0.1 and
train the same model on their shards of the data for `steps` optimizer steps:

    per step:  data_loading (next batch of the rank's shard; a straggler's slow input pipeline lives here)
               forward, backward (DDP allreduces the gradient buckets from autograd hooks during backward)
               [manual gradient allreduce, when the program syncs after backward]
               optimizer_step (gradient norms, optional clipping, optimizer.step)

Every rank records steps wait..wait+active of `torch.profiler` (legacy exporter, no Kineto in this build) into
`rank<N>.trace.json` and logs every step; the launcher samples /proc for itself and all ranks into
`host_metrics.jsonl`, merges the ranks' logs into `metrics.jsonl` (sorted by step, then rank) and writes
`config.json` (what the user knows: no fault knobs) and `expected.json` (label, fault parameters, the axes of
this run, and the symptom as measured from this run's traces and logs).

Faults (faultlib/distributed_faults.py; each changes the program the ranks run, never a log):

  straggler_rank     one rank's input pipeline takes extra time every step, 0.3 / 1.0 / 3.0 x its own step
                     time measured on its first steps: a blocking read (sleep) or CPU decoding (busy numpy)
  small_bucket_size  DDP with bucket_cap_mb 0.25-0.5 / 0.05-0.1 / 0.002-0.01 MB instead of 25: many small
                     allreduces per step (only matters for models above the 1 MB DDP always puts in its
                     first bucket; a fault's cap that gives the model no more buckets than 25 MB does is
                     refused, and expected.json records both bucket counts)
  no_comm_overlap    gradients allreduced after backward (no DDP, or DDP under no_sync()): one flattened
                     buffer / one per layer / one per tensor
  load_imbalance     uneven batch split: one rank 1.5 / 2.5 / 4 x the others' batch (or 1/x, or a ramp)
  expert_imbalance   model.type moe: the router prefers the experts of one rank (a gate bias, no balancing
                     loss): that rank computes most tokens, the others wait for it in the MoE's all_to_all

Axes (config keys, set with --set KEY=VALUE; dotted keys as in config.json):

  world_size 2 | 3 | 4                     model.type mlp (model.hidden [widths]) | cnn (model.channels [..])
                                           | moe (model.width, .hidden, .tokens, .experts_per_rank: one
                                           expert-parallel MoE layer, faultlib/moe.py; moe_aux_loss_coeff)
  optimizer.name sgd | adam, optimizer.momentum, lr      batch_size_per_rank      steps
  dataset.name digits (sklearn) | synthetic (10-class 8x8 images) | any faultlib.datasets name for an mlp
  num_threads_per_rank      bucket_cap_mb (healthy: 25 or another sane value)     clip_threshold
  straggler.rank / imbalance.rank (null = from the seed, -1 = the last rank), straggler.kind,
  imbalance.pattern
  noise.jitter_frac, noise.spike_prob, noise.spike_frac   healthy jitter: every rank's input pipeline
                     waits uniform(0, jitter_frac) x its step time, and with spike_prob a spike of
                     spike_frac x; the same for all ranks (seeded per rank)
  noise.background_procs, noise.background_duty          CPU-burning processes beside the run (a shared
                     machine); never the labelled cause

Usage: /usr/bin/python3 workloads/ddp.py --fault straggler_rank --magnitude medium --seed 3 --output /tmp/x
"""
import contextlib
import datetime
import faulthandler
import json
import os
import random
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.multiprocessing as mp  # noqa: E402
from torch import nn  # noqa: E402
from torch.profiler import ProfilerActivity, profile, record_function, schedule  # noqa: E402

from faultlib import casefolder, datasets, hostmetrics, injector, options  # noqa: E402
from faultlib import distributed_faults as dfaults  # noqa: E402
from faultlib import moe  # noqa: E402

SCENARIO = "distributed"
# Keys that describe the program's internals and environment (a rank's input pipeline, the batch split, how
# gradients are synchronised, other load on the machine): the ranks read them, config.json leaves them out.
PRIVATE_KEYS = ("grad_sync", "straggler", "imbalance", "noise", "expert_router")
USER_RANGES = ("data_loading", "forward", "backward", "optimizer_step")
# The default model has 2.3 MB of parameters in 34 tensors: DDP's first bucket (always up to 1 MB) leaves
# enough tensors for bucket_cap_mb to matter (2 allreduces per step at 25 MB, 10 at 0.05 MB).
DEFAULT_HIDDEN = [192] * 16
DEFAULT_CHANNELS = [16, 32, 32]
DEFAULT_MOE = {"width": 64, "hidden": 256, "tokens": 8, "experts_per_rank": 2}
DEFAULT_BUCKET_CAP_MB = 25  # DistributedDataParallel's default bucket_cap_mb


# ----------------------------------------------------------------------------------------------------------
# configuration

def default_config(seed):
    return {
        "scenario": SCENARIO,
        "dataset": {"name": "digits"},
        "model": {"type": "mlp", "hidden": list(DEFAULT_HIDDEN)},
        "world_size": 2,
        "backend": "gloo",
        "launcher": "one process per rank on localhost (127.0.0.1)",
        "wrapper": "DistributedDataParallel",
        "bucket_cap_mb": DEFAULT_BUCKET_CAP_MB,
        "batch_size_per_rank": 32,
        "optimizer": {"name": "sgd", "lr": 0.05, "momentum": 0.9},
        "lr": 0.05,
        "clip_threshold": None,
        "steps": 30,
        "num_threads_per_rank": 1,
        "seed": seed,
        "profiler": {"schedule": {"wait": 5, "warmup": 2, "active": 6}},
        "grad_sync": "overlap",
        "straggler": None,
        "imbalance": None,
        "expert_router": None,  # the expert_imbalance fault: {"hot_rank", "bias"}
        "moe_aux_loss_coeff": 0.01,  # model.type moe: weight of the router's load-balancing loss
        "noise": {"jitter_frac": 0.0, "spike_prob": 0.0, "spike_frac": 0.0,
                  "background_procs": 0, "background_duty": 0.5},
    }


def build_config(args):
    """Default config -> fault -> --set (wins) -> resolved ranks. Returns (config, fault_params)."""
    config = default_config(args.seed)
    injector.inject(SCENARIO, args.fault, args.magnitude, config, args.seed)
    options.apply_sets(config, options.parse_sets(args.set))
    finalize(config)
    fault_params = dfaults.describe(args.fault, config) if args.fault != "none" else {}
    return config, fault_params


def finalize(config):
    """Checks the final config and resolves what depends on the final world size."""
    world = int(config["world_size"])
    if world < 1:
        raise SystemExit("error: world_size must be >= 1")
    config["world_size"] = world
    if config["model"].get("type") not in ("mlp", "cnn", "moe"):
        raise SystemExit(f"error: model.type {config['model'].get('type')!r}: expected mlp, cnn or moe")
    if config["model"]["type"] == "moe":  # the mlp's hidden widths (a list) are not the MoE's expert width
        m = config["model"]
        config["model"] = {"type": "moe", **{k: m[k] if isinstance(m.get(k), (int, float)) else d
                                             for k, d in DEFAULT_MOE.items()}}
    if config.get("expert_router") and config["model"]["type"] != "moe":
        raise SystemExit("error: expert_router (the expert_imbalance fault) needs model.type moe")
    if config["wrapper"] not in ("DistributedDataParallel", "none"):
        raise SystemExit(f"error: wrapper {config['wrapper']!r}: expected DistributedDataParallel or none")
    if config["grad_sync"] not in dfaults.GRAD_SYNC:
        raise SystemExit(f"error: grad_sync {config['grad_sync']!r}: expected one of {', '.join(dfaults.GRAD_SYNC)}")
    if config["wrapper"] == "none" and config["grad_sync"] == "overlap":
        raise SystemExit("error: grad_sync overlap needs wrapper DistributedDataParallel (its reducer hooks)")
    if config["optimizer"].get("name") not in ("sgd", "adam"):
        raise SystemExit(f"error: optimizer.name {config['optimizer'].get('name')!r}: expected sgd or adam")
    config["optimizer"]["lr"] = config["lr"] = float(config.get("lr", config["optimizer"].get("lr")))
    if config["optimizer"]["name"] == "sgd":
        config["optimizer"]["momentum"] = float(config["optimizer"].get("momentum", 0.0))
    else:
        config["optimizer"].pop("momentum", None)
    sch = config["profiler"]["schedule"]
    if int(config["steps"]) < sch["wait"] + sch["warmup"] + 1:
        raise SystemExit(f"error: steps {config['steps']} leaves no profiled step with schedule {sch}")
    for key, salt in (("straggler", 1), ("imbalance", 2), ("expert_router", 3)):
        if config.get(key):
            config[key]["rank"] = dfaults.resolve_rank(config[key].get("rank"), world, config["seed"], salt)
    dfaults.rank_batch_sizes(config)  # rejects an unknown imbalance.pattern before any rank starts
    if config["straggler"] and config["straggler"].get("kind", "blocking_read") not in dfaults.STRAGGLER_KINDS:
        raise SystemExit(f"error: straggler.kind: expected one of {', '.join(dfaults.STRAGGLER_KINDS)}")


def model_public(m):
    if m["type"] == "moe":
        return {"type": "moe", **{k: int(m[k]) for k in DEFAULT_MOE}}
    key, default = ("hidden", DEFAULT_HIDDEN) if m["type"] == "mlp" else ("channels", DEFAULT_CHANNELS)
    return {"type": m["type"], key: [int(w) for w in m.get(key, default)]}


def public_config(config, data_info, model_stats, profiled_steps):
    """config.json: the run as the person who launched it knows it (the fault knobs are not in it)."""
    out = {"scenario": SCENARIO,
           "task": f"{'image ' if config['model']['type'] == 'cnn' or data_info.get('image') else ''}"
                   f"classification ({data_info['num_classes']} classes), data parallel",
           "dataset": {"name": data_info["name"], "num_samples": data_info["num_samples"],
                       "input_shape": data_info["input_shape"],
                       "sharding": "rank r takes samples r, r+W, r+2W, ... (after a seeded permutation)"},
           "model": model_public(config["model"])}
    out.update(model_stats)
    ddp = config["wrapper"] == "DistributedDataParallel"
    out.update({k: config[k] for k in ("world_size", "backend", "launcher", "wrapper")})
    out["bucket_cap_mb"] = config["bucket_cap_mb"] if ddp else None
    out["batch_size_per_rank"] = config["batch_size_per_rank"]
    out["global_batch_size"] = config["batch_size_per_rank"] * config["world_size"]
    out.update({k: config[k] for k in ("optimizer", "lr", "clip_threshold", "steps", "num_threads_per_rank")})
    if config["model"]["type"] == "moe":
        out["moe_aux_loss_coeff"] = config["moe_aux_loss_coeff"]
        out["expert_parallel_size"] = config["world_size"]
    else:
        out.pop("moe_aux_loss_coeff", None)
    out["cpu_count"] = os.cpu_count()
    out["seed"] = config["seed"]
    out["framework"] = f"pytorch {torch.__version__} (cpu)"
    out["profiler"] = {"schedule": dict(config["profiler"]["schedule"]), "profiled_steps": profiled_steps}
    # Keys a --set added that are neither known nor private (kept: the user set them).
    for k, v in config.items():
        if k not in out and k not in PRIVATE_KEYS:
            out[k] = v
    return out


# ----------------------------------------------------------------------------------------------------------
# data and model

def synthetic_images(seed, n=2000, classes=10):
    """10 classes of 8x8 images: a smooth random prototype per class plus pixel noise and a random shift."""
    rng = np.random.RandomState(seed + 12345)
    protos = rng.normal(size=(classes, 10, 10))
    protos = (protos + np.roll(protos, 1, 1) + np.roll(protos, 1, 2)) / 3.0
    y = rng.randint(classes, size=n)
    dx, dy = rng.randint(3, size=n), rng.randint(3, size=n)
    x = np.stack([protos[c, a:a + 8, b:b + 8] for c, a, b in zip(y, dx, dy)]) + 0.8 * rng.normal(size=(n, 8, 8))
    x = x.reshape(n, 64)
    x = (x - x.mean(axis=0)) / (x.std(axis=0) + 1e-8)
    return (torch.tensor(x, dtype=torch.float32), torch.tensor(y, dtype=torch.int64), (1, 8, 8),
            {"name": "synthetic_images", "num_samples": n, "input_shape": [64], "num_classes": classes})


def load_data(config):
    """Features (shaped for the model), labels and the dataset's description for config.json."""
    name = config["dataset"]["name"]
    seed = config["seed"]
    if name in ("synthetic", "synthetic_images"):
        x, y, image_shape, info = synthetic_images(seed)
    else:
        x, y, image_shape, info = datasets.load(name, seed, config["dataset"].get("num_samples"))
        if info["task"] != "classification":
            raise SystemExit(f"error: dataset {name!r} is a {info['task']} set; ddp.py trains classifiers")
    info = dict(info)
    info["image"] = image_shape is not None
    if config["model"]["type"] == "cnn":
        if image_shape is None:
            raise SystemExit(f"error: model.type cnn needs an image dataset (digits, synthetic), not {name!r}")
        x = x.view(-1, *image_shape)
        info["input_shape"] = list(image_shape)
    else:
        x = x.flatten(1)
        info["input_shape"] = [x.shape[1]]
    info["num_classes"] = int(y.max()) + 1
    return x, y, info


def build_model(config, in_shape, classes, rank=0, world=1, group=None):
    """mlp: Linear+ReLU per hidden width; cnn: Conv3x3+ReLU per channel count, 2x2 pool, Linear.
    Parameter names are those of nn.Sequential (0.weight, 0.bias, 2.weight, ...). moe: faultlib/moe.py's
    classifier holding rank `rank`'s experts of `world` ranks."""
    m = config["model"]
    if m["type"] == "moe":
        router = config.get("expert_router") or {}
        k = int(m["experts_per_rank"])
        bias = moe.gate_bias(k * world, k, router.get("rank"), router.get("bias", 0.0))
        return moe.MoEClassifier(in_shape[0], classes, int(m["width"]), int(m["hidden"]), int(m["tokens"]), k,
                                 rank, world, bias, group)
    layers = []
    if m["type"] == "mlp":
        prev = in_shape[0]
        for width in m.get("hidden", DEFAULT_HIDDEN):
            layers += [nn.Linear(prev, int(width)), nn.ReLU()]
            prev = int(width)
        layers.append(nn.Linear(prev, classes))
    else:
        prev = in_shape[0]
        for ch in m.get("channels", DEFAULT_CHANNELS):
            layers += [nn.Conv2d(prev, int(ch), 3, padding=1), nn.ReLU()]
            prev = int(ch)
        layers += [nn.AdaptiveAvgPool2d(2), nn.Flatten(), nn.Linear(prev * 4, classes)]
    return nn.Sequential(*layers)


def model_stats(model):
    params = list(model.parameters())
    return {"num_parameters": sum(p.numel() for p in params), "num_param_tensors": len(params),
            "param_bytes": sum(p.numel() * p.element_size() for p in params)}


def ddp_buckets(model, bucket_cap_mb):
    """How many gradient buckets DDP builds for the model at this cap: its own assignment, over the order in
    which backward produces the gradients (the buckets are rebuilt in that order after the first step; the
    first bucket holds up to 1 MB whatever the cap, the others up to the cap)."""
    params = [p for p in model.parameters() if p.requires_grad][::-1]
    buckets = dist._compute_bucket_assignment_by_size(
        params, [dist._DEFAULT_FIRST_BUCKET_BYTES, int(float(bucket_cap_mb) * 1024 * 1024)], [False] * len(params))
    return len(buckets[0] if isinstance(buckets, tuple) else buckets)


def fault_bucket_counts(fault, config, sets, model):
    """For small_bucket_size with the fault's own cap: {"ddp_buckets", "ddp_buckets_at_default_cap"} for
    expected.json; SystemExit when that cap gives the model no more buckets than the default, which is no
    fault at all. {} otherwise: another fault, no DDP, or a cap given with --set (the user's, e.g. the fix
    `optimize` measures, run as asked)."""
    cap_set = any(key == "bucket_cap_mb" for key, _ in options.parse_sets(sets))
    if fault != "small_bucket_size" or config["wrapper"] != "DistributedDataParallel" or cap_set:
        return {}
    buckets, default = ddp_buckets(model, config["bucket_cap_mb"]), ddp_buckets(model, DEFAULT_BUCKET_CAP_MB)
    if buckets <= default:
        param_bytes = model_stats(model)["param_bytes"]
        raise SystemExit(f"error: small_bucket_size: bucket_cap_mb {config['bucket_cap_mb']} gives this model "
                         f"({param_bytes} parameter bytes) {buckets} bucket(s), as many as the default "
                         f"{DEFAULT_BUCKET_CAP_MB} MB: take a larger model or a smaller cap")
    return {"ddp_buckets": buckets, "ddp_buckets_at_default_cap": default}


class ShardLoader:
    """Batches of one rank's shard (strided after a seeded permutation), reshuffled every pass."""

    def __init__(self, x, y, rank, world, batch_size, seed):
        perm = torch.randperm(len(y), generator=torch.Generator().manual_seed(seed))
        self.idx = perm[rank::world]
        self.x, self.y, self.batch_size = x, y, batch_size
        self.gen = torch.Generator().manual_seed(seed * 1000 + rank + 1)
        self.order, self.pos = None, len(self.idx)

    def next(self):
        if self.pos + self.batch_size > len(self.idx):
            self.order = self.idx[torch.randperm(len(self.idx), generator=self.gen)]
            self.pos = 0
        take = self.order[self.pos:self.pos + self.batch_size]
        if len(take) < self.batch_size:  # a batch larger than the shard: repeat samples
            take = take.repeat((self.batch_size + len(take) - 1) // len(take))[:self.batch_size]
        self.pos += self.batch_size
        return self.x[take], self.y[take]


# ----------------------------------------------------------------------------------------------------------
# what happens in the input pipeline besides reading the batch

def burn_cpu(seconds, buf):
    """CPU work in Python/numpy (like image decoding or augmentation in the main process)."""
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        np.tanh(buf, out=buf)
        buf += 0.5


class InputPipelineDelays:
    """Extra time the rank's input pipeline takes per step: the straggler fault and the healthy jitter.

    Both are relative to this rank's own step time without them: the running median over its last
    `window` steps of (step time - the extra time it added itself). Step 0 (DDP's set-up) is not measured
    and nothing is added before `calibration_steps` (profiling starts later). A running figure, not one
    taken on the first steps, because the shared machine's load changes while the run goes on."""

    window = 8

    def __init__(self, config, rank):
        self.rank = rank
        self.straggler = config.get("straggler") if (config.get("straggler") or {}).get("rank") == rank else None
        self.noise = config.get("noise") or {}
        self.rng = random.Random(config["seed"] * 7 + rank * 7919 + 3)
        self.calibration_steps = max(2, min(4, int(config["profiler"]["schedule"]["wait"])))
        self.base_s = []
        self.added_s = 0.0
        self.buf = np.random.RandomState(rank).rand(16384).astype(np.float32)
        self.extra_ms_applied = []

    def ref_step_s(self):
        return statistics.median(self.base_s[-self.window:]) if self.base_s else None

    def observe(self, step, step_seconds):
        if step >= 1:
            self.base_s.append(max(step_seconds - self.added_s, 0.0))

    def apply(self, step):
        self.added_s = 0.0
        if step < self.calibration_steps:
            return
        ref = self.ref_step_s()
        jitter = float(self.noise.get("jitter_frac") or 0.0)
        extra_wait = self.rng.uniform(0.0, jitter) * ref if jitter else 0.0
        if self.noise.get("spike_prob") and self.rng.random() < float(self.noise["spike_prob"]):
            extra_wait += float(self.noise.get("spike_frac") or 0.0) * ref
        extra_cpu = 0.0
        if self.straggler:
            extra = float(self.straggler.get("extra_step_frac") or 0.0) * ref
            if self.straggler.get("kind") == "cpu_decode":
                extra_cpu = extra
            else:
                extra_wait += extra
            self.extra_ms_applied.append(extra * 1e3)
        t0 = time.perf_counter()
        if extra_cpu:
            burn_cpu(extra_cpu, self.buf)
        if extra_wait:
            time.sleep(extra_wait)
        self.added_s = time.perf_counter() - t0


def background_load(duty, stop):
    """A process of someone else on the shared machine: busy `duty` of every 20 ms."""
    buf = np.random.rand(16384).astype(np.float32)
    while not stop.is_set():
        burn_cpu(0.02 * duty, buf)
        time.sleep(0.02 * (1.0 - duty))


# ----------------------------------------------------------------------------------------------------------
# one rank

def sync_after_backward(params, names, mode, world):
    """Manual gradient allreduce once backward is done (the no_comm_overlap program)."""
    grads = [p.grad for p in params]
    if mode == "after_backward_flat":
        groups = [list(range(len(grads)))]
    elif mode == "after_backward_per_layer":
        by_layer = {}
        for i, name in enumerate(names):
            by_layer.setdefault(name.rsplit(".", 1)[0], []).append(i)
        groups = list(by_layer.values())
    else:
        groups = [[i] for i in range(len(grads))]
    for group in groups:
        if len(group) == 1:
            g = grads[group[0]]
            dist.all_reduce(g)
            g.div_(world)
        else:
            tensors = [grads[i] for i in group]
            flat = torch._utils._flatten_dense_tensors(tensors)
            dist.all_reduce(flat)
            flat.div_(world)
            for t, synced in zip(tensors, torch._utils._unflatten_dense_tensors(flat, tensors)):
                t.copy_(synced)


def rank_main(rank, config, port, output, workdir, watchdog_s):
    # A rank that is still running at the launcher's deadline prints every thread's stack and exits, so a
    # hang reads as where it hung, not as a run that never ends.
    faulthandler.dump_traceback_later(watchdog_s, exit=True)
    world = config["world_size"]
    torch.set_num_threads(int(config["num_threads_per_rank"]))
    os.environ.setdefault("GLOO_SOCKET_IFNAME", "lo")  # gloo's pairs on the loopback device, like the store
    timeout = datetime.timedelta(seconds=120)
    # The launcher holds the rendezvous store on a port the kernel gave it; ranks join as clients, so no
    # other program can take the port between choosing and binding it.
    store = dist.TCPStore("127.0.0.1", port, world + 1, False, timeout)
    dist.init_process_group("gloo", store=store, rank=rank, world_size=world, timeout=timeout)
    x, y, _ = load_data(config)
    batch_size = dfaults.rank_batch_sizes(config)[rank]
    loader = ShardLoader(x, y, rank, world, batch_size, config["seed"])
    torch.manual_seed(config["seed"])  # the same initial weights on every rank
    is_moe = config["model"]["type"] == "moe"
    # The MoE's all_to_all runs on a group of its own, apart from the gradient allreduces.
    moe_group = dist.new_group(list(range(world))) if is_moe else None
    net = build_model(config, list(x.shape[1:]), int(y.max()) + 1, rank, world, moe_group)
    names = [n for n, _ in net.named_parameters()]
    params = list(net.parameters())
    # Expert parallel: each rank owns its experts; their gradients come back through the all_to_all and are
    # not averaged over the ranks.
    local = {n for n in names if ".experts." in n}
    ddp = config["wrapper"] == "DistributedDataParallel"
    if ddp:
        if local:
            nn.parallel.DistributedDataParallel._set_params_and_buffers_to_ignore_for_model(net, sorted(local))
        model = nn.parallel.DistributedDataParallel(net, bucket_cap_mb=float(config["bucket_cap_mb"]))
    else:
        model = net
        for n, p in zip(names, params):  # what DDP's constructor does: start from rank 0's weights
            if n not in local:
                dist.broadcast(p.data, 0)
    sync = config["grad_sync"]
    opt_cfg = config["optimizer"]
    if opt_cfg["name"] == "sgd":
        optimizer = torch.optim.SGD(params, lr=config["lr"], momentum=opt_cfg.get("momentum", 0.0))
    else:
        optimizer = torch.optim.Adam(params, lr=config["lr"])
    clip = config.get("clip_threshold")
    loss_fn = nn.CrossEntropyLoss()
    delays = InputPipelineDelays(config, rank)
    sch = config["profiler"]["schedule"]
    trace_path = os.path.join(output, f"rank{rank}.trace.json")

    log = casefolder.JsonLines(os.path.join(workdir, f"rank{rank}.metrics.jsonl"))
    with profile(activities=[ProfilerActivity.CPU],
                 schedule=schedule(wait=sch["wait"], warmup=sch["warmup"], active=sch["active"], repeat=1),
                 on_trace_ready=lambda p: p.export_chrome_trace(trace_path)) as prof:
        for step in range(int(config["steps"])):
            t0 = time.perf_counter()
            with record_function("data_loading"):
                xb, yb = loader.next()
                delays.apply(step)
            optimizer.zero_grad(set_to_none=True)
            # DDP under no_sync() skips its reducer: forward and backward must both run inside it.
            no_sync = model.no_sync() if ddp and sync != "overlap" else contextlib.nullcontext()
            with no_sync:
                with record_function("forward"):
                    loss = loss_fn(model(xb), yb)
                    if is_moe:
                        loss = loss + float(config["moe_aux_loss_coeff"]) * net.moe.aux_loss
                with record_function("backward"):
                    loss.backward()
            if sync != "overlap":
                synced = [(n, p) for n, p in zip(names, params) if n not in local]
                sync_after_backward([p for _, p in synced], [n for n, _ in synced], sync, world)
            with record_function("optimizer_step"):
                # An expert that got no token this step has no gradient.
                norms = torch.stack([p.grad.detach().norm() if p.grad is not None else torch.zeros(())
                                     for p in params])
                grad_norm = float(norms.norm())
                if clip is not None:
                    nn.utils.clip_grad_norm_(params, float(clip))
                optimizer.step()
            log.write({"step": step, "time": time.time(), "rank": rank, "loss": float(loss),
                       "grad_norm": grad_norm, "lr": config["lr"], "clip_threshold": clip,
                       "batch_size": batch_size,
                       **({"moe_tokens_per_expert": net.moe.tokens_per_expert,
                           "moe_aux_loss": float(net.moe.aux_loss)} if is_moe else {}),
                       "layer_grad_norms": {n: float(v) for n, v in zip(names, norms.tolist())}})
            delays.observe(step, time.perf_counter() - t0)
            prof.step()
    log.close()
    casefolder.write_json(os.path.join(workdir, f"rank{rank}.summary.json"), {
        "rank": rank, "batch_size": batch_size,
        "ref_step_ms": None if not delays.base_s else statistics.median(delays.base_s) * 1e3,
        "straggler_extra_ms": statistics.median(delays.extra_ms_applied) if delays.extra_ms_applied else None})
    dist.barrier()
    # Leave without running the destructors once every rank has returned from the barrier (told through the
    # launcher's store, so no gloo operation is left in flight on any rank when the sockets close). Tearing
    # down DDP's reducer can deadlock in PyTorch 1.13: ~Reducer drops the last reference to the gloo group,
    # whose destructor joins a gloo worker thread while holding the GIL, and that thread waits for the GIL to
    # free a tensor it still holds (seen once in 30 runs: a rank that never exits).
    store.set(f"exited_barrier/{rank}", "1")
    store.wait([f"exited_barrier/{r}" for r in range(world)])
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


# ----------------------------------------------------------------------------------------------------------
# the launcher

def launch(config, output, workdir, timeout_s=900):
    """Runs the ranks (and any background load); host metrics cover the launcher and every rank."""
    ctx = mp.get_context("spawn")
    noise = config.get("noise") or {}
    stop = ctx.Event()
    background = [ctx.Process(target=background_load, args=(float(noise.get("background_duty", 0.5)), stop),
                              daemon=True) for _ in range(int(noise.get("background_procs") or 0))]
    store = dist.TCPStore("127.0.0.1", 0, config["world_size"] + 1, True, datetime.timedelta(seconds=120),
                          wait_for_workers=False)
    sampler = hostmetrics.HostSampler(os.path.join(output, "host_metrics.jsonl"),
                                      {os.getpid(): {"role": "launcher"}})
    sampler.start()
    ranks = []
    try:
        for p in background:
            p.start()
        for r in range(config["world_size"]):
            p = ctx.Process(target=rank_main, args=(r, config, store.port, output, workdir, max(1.0, timeout_s - 5)))
            p.start()
            sampler.add_process(p.pid, {"rank": r})
            ranks.append(p)
        deadline = time.time() + timeout_s
        while any(p.is_alive() for p in ranks):
            failed = [r for r, p in enumerate(ranks) if p.exitcode not in (None, 0)]
            if failed or time.time() > deadline:
                raise SystemExit(f"error: rank(s) {failed or 'all'} "
                                 f"{'failed' if failed else f'still running after {timeout_s} s'}")
            time.sleep(0.05)
        failed = [r for r, p in enumerate(ranks) if p.exitcode != 0]
        if failed:
            raise SystemExit(f"error: rank(s) {failed} failed (exit codes {[ranks[r].exitcode for r in failed]})")
    finally:
        for p in ranks:
            if p.is_alive():
                p.terminate()
        stop.set()
        for p in background:
            p.join(2)
            if p.is_alive():
                p.terminate()
        sampler.stop()


def merge_metrics(config, output, workdir):
    rows = []
    for r in range(config["world_size"]):
        with open(os.path.join(workdir, f"rank{r}.metrics.jsonl")) as f:
            rows += [json.loads(line) for line in f if line.strip()]
    rows.sort(key=lambda row: (row["step"], row["rank"]))
    with casefolder.JsonLines(os.path.join(output, "metrics.jsonl")) as out:
        for row in rows:
            out.write(row)
    return rows


# ----------------------------------------------------------------------------------------------------------
# measuring the symptom from the run's own traces and logs

def _merge(intervals):
    """Disjoint, sorted intervals covering the same time as `intervals`."""
    out = []
    for a, b in sorted(intervals):
        if out and a <= out[-1][1]:
            out[-1][1] = max(out[-1][1], b)
        else:
            out.append([a, b])
    return out


def _union(intervals):
    return sum(b - a for a, b in _merge(intervals))


def _clip(intervals, lo, hi):
    return [(max(a, lo), min(b, hi)) for a, b in intervals if min(b, hi) > max(a, lo)]


def _subtract(intervals, holes):
    """Length of the union of `intervals` not covered by `holes`."""
    return sum((b - a) - _union(_clip(holes, a, b)) for a, b in _merge(intervals))


def trace_steps(path):
    """Per profiled step of one rank's trace: user ranges, collective calls and time (all in ms)."""
    with open(path) as f:
        events = [e for e in json.load(f) if e.get("ph") == "X"]
    steps = [e for e in events if e["name"].startswith("ProfilerStep#")]
    out = {}
    for st in steps:
        lo, hi, tid = st["ts"], st["ts"] + st["dur"], st["tid"]
        inside = [e for e in events if lo <= e["ts"] < hi]
        main = [e for e in inside if e["tid"] == tid]
        ranges = {n: [(e["ts"], e["ts"] + e["dur"]) for e in main if e["name"] == n] for n in USER_RANGES}
        calls = [e for e in main if e["name"].startswith("c10d::all_reduce") or e["name"] == "c10d::allreduce_"]
        in_bwd = [any(a <= c["ts"] and c["ts"] + c["dur"] <= b for a, b in ranges["backward"]) for c in calls]
        coll = _clip([(e["ts"], e["ts"] + e["dur"]) for e in inside if e["name"].startswith("gloo:")], lo, hi)
        model = ranges["forward"] + ranges["backward"] + ranges["optimizer_step"]
        out[int(st["name"].split("#")[1])] = {
            "step_ms": st["dur"] / 1e3,
            **{f"{n}_ms": _union(ranges[n]) / 1e3 for n in USER_RANGES},
            "allreduce_calls": len(calls),
            "allreduce_in_backward": sum(in_bwd),
            "collective_ms": _union(coll) / 1e3,
            "exposed_collective_ms": _subtract(coll, model) / 1e3,
        }
    return out


def _median(values):
    values = [v for v in values if v is not None]
    return round(statistics.median(values), 2) if values else None


def measure(config, output, rows, summaries):
    world = config["world_size"]
    per_rank, profiled = {}, None
    for r in range(world):
        steps = trace_steps(os.path.join(output, f"rank{r}.trace.json"))
        profiled = sorted(steps) if profiled is None else profiled
        calls = sum(s["allreduce_calls"] for s in steps.values())
        per_rank[str(r)] = {
            **{k: _median([s[k] for s in steps.values()]) for k in
               ("step_ms", "data_loading_ms", "forward_ms", "backward_ms", "optimizer_step_ms",
                "collective_ms", "exposed_collective_ms")},
            "allreduce_per_step": round(calls / max(len(steps), 1), 2),
            "allreduce_outside_backward_frac":
                round(1 - sum(s["allreduce_in_backward"] for s in steps.values()) / calls, 3) if calls else None,
            "profiled_steps": len(steps),
        }
        per_rank[str(r)]["collective_share"] = (
            round(per_rank[str(r)]["collective_ms"] / per_rank[str(r)]["step_ms"], 3)
            if per_rank[str(r)]["step_ms"] else None)
    # step time from the log: the step ends when the last rank ends it
    end = {}
    for row in rows:
        end[row["step"]] = max(end.get(row["step"], 0.0), row["time"])
    step_ms = [(end[s] - end[s - 1]) * 1e3 for s in sorted(end) if s - 1 in end]
    batches = {str(r): sorted({row["batch_size"] for row in rows if row["rank"] == r}) for r in range(world)}
    fwd = [per_rank[str(r)]["forward_ms"] for r in range(world)]
    data = [per_rank[str(r)]["data_loading_ms"] for r in range(world)]
    slow = max(range(world), key=lambda r: data[r])
    last = max(end)
    m = {
        "world_size": world,
        "step_ms_median": _median(step_ms),
        "per_rank": per_rank,
        "rank_batch_sizes": batches,
        "forward_max_over_min": round(max(fwd) / min(fwd), 2) if min(fwd) else None,
        "data_loading_max_ms": data[slow],
        "data_loading_max_rank": slow,
        "data_loading_others_max_ms": max([d for r, d in enumerate(data) if r != slow], default=None),
        "backward_ms_by_rank": [per_rank[str(r)]["backward_ms"] for r in range(world)],
        "collective_ms_by_rank": [per_rank[str(r)]["collective_ms"] for r in range(world)],
        "allreduce_per_step": _median([per_rank[str(r)]["allreduce_per_step"] for r in range(world)]),
        "allreduce_outside_backward_frac":
            _median([per_rank[str(r)]["allreduce_outside_backward_frac"] for r in range(world)]),
        "loss_first": round(statistics.mean(row["loss"] for row in rows if row["step"] == 0), 3),
        "loss_last": round(statistics.mean(row["loss"] for row in rows if row["step"] == last), 3),
        "ref_step_ms_by_rank": [summaries[r]["ref_step_ms"] and round(summaries[r]["ref_step_ms"], 2)
                                for r in range(world)],
    }
    extra = [s["straggler_extra_ms"] for s in summaries if s["straggler_extra_ms"] is not None]
    if extra:
        m["straggler_extra_ms"] = round(extra[0], 2)
    tokens = [row["moe_tokens_per_expert"] for row in rows if row.get("moe_tokens_per_expert")]
    if tokens:  # every rank routes its own tokens: the sum over ranks is what each rank's experts got
        k = int(config["model"]["experts_per_rank"])
        per_expert = [sum(t[e] for t in tokens) / (len(tokens) / world) for e in range(len(tokens[0]))]
        m["moe_tokens_per_rank"] = [round(sum(per_expert[r * k:(r + 1) * k]), 1) for r in range(world)]
    m.update(host_summary(os.path.join(output, "host_metrics.jsonl")))
    return m, profiled


def host_summary(path):
    util, runnable, threads, proc_util, times = [], [], [], [], set()
    with open(path) as f:
        for line in f:
            rec = json.loads(line)
            times.add(rec["time"])
            if rec["metric"] == "cpu.utilization" and rec["labels"].get("cpu") == "all":
                util.append(rec["value"])
            elif rec["metric"] == "load.runnable":
                runnable.append(rec["value"])
            elif rec["metric"] == "proc.threads" and "rank" in rec["labels"]:
                threads.append(rec["value"])
            elif rec["metric"] == "proc.cpu_utilization" and "rank" in rec["labels"]:
                proc_util.append(rec["value"])
    mean = lambda v: round(statistics.mean(v), 3) if v else None  # noqa: E731
    return {"host_cpu_util_mean": mean(util), "host_runnable_mean": mean(runnable),
            "proc_threads_max": max(threads, default=None), "proc_cpu_util_mean": mean(proc_util),
            "host_samples": len(times)}


def notes_of(fault, config, fault_params, m):
    parts = [f"median step {m['step_ms_median']} ms"]
    for r, p in m["per_rank"].items():
        parts.append(f"rank{r}: median data {p['data_loading_ms']} / fwd {p['forward_ms']} / bwd "
                     f"{p['backward_ms']} ms, {p['allreduce_per_step']} allreduce/step, collective "
                     f"{p['collective_ms']} ms ({p['exposed_collective_ms']} exposed)")
    if fault == "straggler_rank":
        r = fault_params["straggler_rank"]
        parts.append(f"rank {r} ({fault_params['kind']}) adds {m.get('straggler_extra_ms')} ms per step in "
                     f"data_loading (others' max {m['data_loading_others_max_ms']} ms); its collective time "
                     f"{m['collective_ms_by_rank'][r]} ms vs the others' "
                     f"{[c for i, c in enumerate(m['collective_ms_by_rank']) if i != r]}")
    elif fault == "small_bucket_size":
        parts.append(f"bucket_cap_mb {config['bucket_cap_mb']} on {m.get('param_bytes')} parameter bytes: "
                     f"{m['allreduce_per_step']} allreduces per step")
    elif fault == "no_comm_overlap":
        parts.append(f"{config['grad_sync']} ({config['wrapper']}): "
                     f"{round(100 * (m['allreduce_outside_backward_frac'] or 0))}% of the allreduces run after "
                     f"backward finished")
    elif fault == "load_imbalance":
        parts.append(f"batch sizes {m['rank_batch_sizes']}, forward time max/min across ranks "
                     f"{m['forward_max_over_min']}")
    if m.get("moe_tokens_per_rank"):
        parts.append(f"MoE tokens per rank's experts per step {m['moe_tokens_per_rank']}")
    return "Measured: " + "; ".join(parts) + "."


# ----------------------------------------------------------------------------------------------------------
# names of the axis values of this run (expected.json "variant")

def _layers_name(kind, widths):
    widths = [int(w) for w in widths]
    if len(set(widths)) == 1:
        return f"{kind}{widths[0]}x{len(widths)}"
    return kind + "-".join(str(w) for w in widths)


def variant_of(config):
    m = config["model"]
    opt = config["optimizer"]
    noise = config.get("noise") or {}
    noise_kinds = [k for k, on in (("jitter", noise.get("jitter_frac") or noise.get("spike_prob")),
                                   ("background", noise.get("background_procs"))) if on]
    v = {
        "world": config["world_size"],
        "model": (f"moe{m['experts_per_rank'] * config['world_size']}x{m['width']}" if m["type"] == "moe" else
                  _layers_name(m["type"], m.get("hidden" if m["type"] == "mlp" else "channels",
                                                DEFAULT_HIDDEN if m["type"] == "mlp" else DEFAULT_CHANNELS))),
        "optimizer": opt["name"] if opt["name"] == "adam" else ("sgd+momentum" if opt.get("momentum") else "sgd"),
        "lr": config["lr"],
        "batch": config["batch_size_per_rank"],
        "dataset": config["dataset"]["name"],
        "steps": config["steps"],
        "threads": config["num_threads_per_rank"],
        "wrapper": config["wrapper"],
        "bucket": config["bucket_cap_mb"] if config["wrapper"] != "none" else None,
        "sync": config["grad_sync"],
        "noise": "+".join(noise_kinds) or "none",
    }
    # the rank a straggler or an imbalance concerns (matrix axis "rank"), with how it shows
    v["rank"] = None
    if config.get("straggler"):
        v["rank"] = config["straggler"]["rank"]
        v["straggler_kind"] = config["straggler"].get("kind")
    if config.get("imbalance"):
        v["rank"] = config["imbalance"]["rank"]
        v["imbalance_pattern"] = config["imbalance"].get("pattern")
    if config.get("expert_router"):
        v["rank"] = config["expert_router"]["rank"]
    return v


# ----------------------------------------------------------------------------------------------------------

def main(argv=None):
    ap = options.parser("Data-parallel (gloo, localhost) training with an injected fault; writes a case folder.",
                        injector.faults_of(SCENARIO))
    ap.add_argument("--timeout", type=float, default=900.0, metavar="S",
                    help="seconds the ranks may run; a rank still running then prints its stacks and the run "
                         "fails (default 900)")
    args = ap.parse_args(argv)
    config, fault_params = build_config(args)
    x, y, data_info = load_data(config)
    model = build_model(config, list(x.shape[1:]), data_info["num_classes"], 0, config["world_size"])
    stats = model_stats(model)
    fault_params.update(fault_bucket_counts(args.fault, config, args.set, model))
    del x, y, model

    output = os.path.abspath(args.output)
    os.makedirs(output, exist_ok=True)
    for name in os.listdir(output):  # a rerun into the same folder must not keep an old run's ranks
        if name.endswith(".trace.json") or name in ("metrics.jsonl", "host_metrics.jsonl", "expected.json",
                                                     "config.json"):
            os.remove(os.path.join(output, name))
    workdir = tempfile.mkdtemp(prefix="ddp-ranks-")
    started = time.time()
    try:
        launch(config, output, workdir, args.timeout)
        rows = merge_metrics(config, output, workdir)
        summaries = [json.load(open(os.path.join(workdir, f"rank{r}.summary.json")))
                     for r in range(config["world_size"])]
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    measured, profiled = measure(config, output, rows, summaries)
    measured["param_bytes"] = stats["param_bytes"]
    measured["run_seconds"] = round(time.time() - started, 2)
    if args.fault == "straggler_rank":
        fault_params["extra_ms_per_step"] = measured.get("straggler_extra_ms")
    casefolder.write_json(os.path.join(output, "config.json"), public_config(config, data_info, stats, profiled))
    root_cause = "healthy" if args.fault == "none" else args.fault
    if root_cause != "healthy":
        fault_params["magnitude"] = args.magnitude
    casefolder.write_expected(output, SCENARIO, root_cause, fault_params, variant_of(config),
                              notes_of(args.fault, config, fault_params, measured), measured)
    print(f"{output}: {root_cause} {json.dumps(fault_params)} in {measured['run_seconds']} s; "
          f"step {measured['step_ms_median']} ms, {measured['allreduce_per_step']} allreduce/step")


if __name__ == "__main__":
    main()
