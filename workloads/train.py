#!/usr/bin/python3
"""Single-process PyTorch training with an optional injected fault; writes one case folder.

  /usr/bin/python3 workloads/train.py --fault lr_too_high --magnitude medium --seed 3 --output runs/r1
  /usr/bin/python3 workloads/train.py --fault none --set optimizer.name=adamw --set model.type=transformer ...

The program: a classifier (mlp, cnn, resnet or a small transformer; faultlib/models.py) learns a dataset that
sklearn ships or a synthetic one (faultlib/datasets.py) with cross-entropy, or the same networks with one
output regress a standardised target with a squared error (the regression datasets), an optimizer (sgd, sgd with
momentum or Nesterov momentum, adam, adamw, rmsprop, nadam, radam, adagrad), a learning-rate schedule
(constant, step, cosine, warmup, linear, exponential), optional gradient clipping (clip_grad_norm_) and a
data order (faultlib/data_order.py). Every step logs what the case corpus holds (step, time, epoch, loss,
grad_norm before clipping, lr, clip_threshold, layer_grad_norms) and the iteration's wall time
(iteration_time_ms, as Megatron-LM logs "elapsed time per iteration (ms)"); torch.profiler records a few steps, with input
shapes, into trace.json; /proc is sampled into host_metrics.jsonl.

Faults (faultlib/training_faults.py): lr_too_high, grad_clip_too_low, gradient_explosion, vanishing_gradient,
unshuffled_data, batch_too_small, loss_spike, loss_scale_overflow, host_input_bound, throughput_drop. `--set KEY=VALUE` is applied
after the fault: it wins over it.

Configuration keys (config.json; --set takes dotted keys): dataset.name/num_samples/label_noise,
model.type/width/depth/act/norm/init_gain/dropout, optimizer.name/momentum/nesterov/weight_decay, lr (a
number, {"times_default": k} or {"times_divergence": k}: k times the rate at which a short LR range test of
this model, optimizer and data diverges), lr_schedule.kind (constant|step|cosine|warmup|linear|exponential)
with step_size/gamma/warmup_steps, batch_size, steps (a number, or {"seconds": s}: as many as fill s seconds
at the pace a probe of the model measures, for runs that must last), data_order (faultlib/data_order.py ORDERS),
shuffle_buffer, clip_threshold (null, a number or {"times_initial_grad_norm": f}), data_corruption
({"at_fraction": f, "batches": n, "input_gain": g}: n consecutive batches from step f * steps on reach the
model as corrupt records, noise of g times the inputs' spread, with their labels), num_threads,
competing_busy_processes (busy processes beside the run, faultlib/competitors.py), competing_job
({"at_fraction": f, "busy_processes": n}: n busy processes start at step f * steps and stay), fp16 / bf16
(half-precision gradients, faultlib/mixed_precision.py) with initial_loss_scale, min_loss_scale,
loss_scale_window and hysteresis (fp16's dynamic loss scaler; rows then log loss_scale and
skipped_iterations).
"""
import contextlib
import copy
import math
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

from faultlib import casefolder, data_order, datasets, injector, models, options, trace_export  # noqa: E402
from faultlib import competitors as sidecars  # noqa: E402
from faultlib import mixed_precision, training_faults  # noqa: E402
from faultlib.hostmetrics import HostSampler  # noqa: E402

# A learning rate that trains the workloads' models well with each optimizer (the "default" a fault
# multiplies). SGD without momentum tolerates about ten times the rate of SGD with momentum 0.9.
DEFAULT_LR = {"sgd": 0.1, "sgd_momentum": 0.02, "adam": 1e-3, "adamw": 1e-3, "rmsprop": 5e-4, "nadam": 2e-3,
              "radam": 1e-3, "adagrad": 1e-2}
OPTIMIZERS = ("sgd", "adam", "adamw", "rmsprop", "nadam", "radam", "adagrad")
SCHEDULES = ("constant", "step", "cosine", "warmup", "linear", "exponential")
PROFILE = {"wait": 4, "warmup": 1, "active": 3}


def default_config(seed):
    return {
        "scenario": "training",
        "task": "classification",
        "dataset": {"name": "digits"},
        "model": {"type": "mlp", "width": 64, "depth": 2, "act": "relu", "norm": False, "init_gain": None},
        "batch_size": 32,
        "steps": 200,
        "optimizer": {"name": "sgd", "momentum": 0.9, "weight_decay": 0.0},
        "lr": None,
        "lr_schedule": {"kind": "constant"},
        "clip_threshold": None,
        "loss": "cross_entropy",
        "data_order": "fresh_shuffle",
        "shuffle_buffer": None,
        "drop_last": True,
        "num_threads": 1,
        "competing_busy_processes": 0,
        "competing_job": None,
        "fp16": False,
        "bf16": False,
        "seed": seed,
    }


def optimizer_key(opt):
    name = opt.get("name", "sgd")
    if name not in OPTIMIZERS:
        raise SystemExit(f"error: optimizer.name {name!r}: expected one of {', '.join(OPTIMIZERS)}")
    return "sgd_momentum" if name == "sgd" and float(opt.get("momentum") or 0.0) > 0.0 else name


def resolve_lr(config):
    lr = config.get("lr")
    base = DEFAULT_LR[optimizer_key(config["optimizer"])]
    if lr is None:
        return base
    if isinstance(lr, dict) and "times_divergence" in lr:
        raise ValueError("lr times_divergence is resolved by an LR range test on the model (run())")
    if isinstance(lr, dict):
        return base * float(lr["times_default"])
    return float(lr)


def divergence_lr(config, model, loss_fn, x, y, batch, seed, steps=60, lr_min=1e-5, lr_max=10.0):
    """The rate at which this model, optimizer and data diverge: an exponential learning-rate sweep on a
    copy of the initialised model (Smith's LR range test, fastai's lr_find), stopped when the smoothed loss
    exceeds 4 times its lowest value or stops being finite. Returns that rate (lr_max if it never does)."""
    probe, opt, gen = probe_copy(model, config["optimizer"], lr_min, seed)
    smooth, best = None, math.inf
    for i in range(steps):
        lr = lr_min * (lr_max / lr_min) ** (i / (steps - 1))
        for group in opt.param_groups:
            group["lr"] = lr
        idx = torch.randint(len(y), (batch,), generator=gen)
        opt.zero_grad()
        loss = loss_fn(probe(x[idx]), y[idx])
        value = loss.item()
        smooth = value if smooth is None else 0.7 * smooth + 0.3 * value
        if not math.isfinite(smooth) or (i > 5 and smooth > 4.0 * best):
            return lr
        best = min(best, smooth)
        loss.backward()
        opt.step()
    return lr_max


def probe_copy(model, opt_spec, lr, seed):
    """A copy of the model with an optimizer and a batch generator of its own, for probes that train it
    (the rate sweep, the pace probe): the run's own model and optimizer are untouched."""
    probe = copy.deepcopy(model)
    return probe, make_optimizer(opt_spec, probe.parameters(), lr), torch.Generator().manual_seed(seed)


def make_optimizer(opt, params, lr):
    name, wd = opt.get("name", "sgd"), float(opt.get("weight_decay") or 0.0)
    if name == "sgd":
        momentum = float(opt.get("momentum") or 0.0)
        return torch.optim.SGD(params, lr=lr, momentum=momentum, weight_decay=wd,
                               nesterov=bool(opt.get("nesterov")) and momentum > 0.0)
    if name == "adam":
        return torch.optim.Adam(params, lr=lr, weight_decay=wd)
    if name == "adamw":
        return torch.optim.AdamW(params, lr=lr, weight_decay=wd if wd else 0.01)
    if name == "nadam":
        return torch.optim.NAdam(params, lr=lr, weight_decay=wd)
    if name == "radam":
        return torch.optim.RAdam(params, lr=lr, weight_decay=wd)
    if name == "adagrad":
        return torch.optim.Adagrad(params, lr=lr, weight_decay=wd)
    return torch.optim.RMSprop(params, lr=lr, weight_decay=wd)


def lr_factor(schedule, step, steps):
    kind = schedule.get("kind", "constant")
    if kind == "constant":
        return 1.0
    if kind == "step":
        return float(schedule.get("gamma", 0.3)) ** (step // int(schedule.get("step_size", max(1, steps // 3))))
    if kind == "cosine":
        return 0.5 * (1.0 + math.cos(math.pi * step / steps))
    if kind == "warmup":
        # Linear warm-up, then cosine decay (the usual transformer recipe).
        warm = int(schedule.get("warmup_steps", max(1, steps // 10)))
        if step < warm:
            return (step + 1) / warm
        return 0.5 * (1.0 + math.cos(math.pi * (step - warm) / max(1, steps - warm)))
    if kind == "linear":
        # Linear decay to zero (Hugging Face's default scheduler), after an optional linear warm-up.
        warm = int(schedule.get("warmup_steps", 0))
        if step < warm:
            return (step + 1) / warm
        return max(0.0, (steps - step) / max(1, steps - warm))
    if kind == "exponential":
        return float(schedule.get("gamma", 0.995)) ** step
    raise SystemExit(f"error: lr_schedule.kind {kind!r}: expected one of {', '.join(SCHEDULES)}")


def shuffle_buffered(indices, buffer, gen):
    """A streaming shuffle buffer over `indices` (tf.data's shuffle(buffer_size)): buffer <= 1 is no shuffle."""
    if buffer <= 1:
        return indices
    out, pool = [], []
    for i in indices:
        pool.append(i)
        if len(pool) >= buffer:
            out.append(pool.pop(int(torch.randint(len(pool), (1,), generator=gen))))
    while pool:
        out.append(pool.pop(int(torch.randint(len(pool), (1,), generator=gen))))
    return out


def batches(order, batch_size, buffer, gen):
    """Endless (epoch, index batch) pairs; the last partial batch of an epoch is dropped."""
    epoch = 0
    while True:
        idx = shuffle_buffered(list(iter(order)), buffer, gen)
        for i in range(0, len(idx) - batch_size + 1, batch_size):
            yield epoch, idx[i:i + batch_size]
        epoch += 1


class SquaredError(torch.nn.Module):
    """Mean squared error of a one-output network's prediction against a float target."""

    def forward(self, prediction, target):
        return torch.nn.functional.mse_loss(prediction.squeeze(-1), target)


def loss_fn_for(config):
    return SquaredError() if config.get("loss") == "mse" else torch.nn.CrossEntropyLoss()


def total_norm(layer_norms):
    return math.sqrt(sum(v * v for v in layer_norms.values()))


def grad_norms(model):
    return {n: p.grad.detach().norm().item() for n, p in model.named_parameters() if p.grad is not None}


def initial_grad_norm(model, loss_fn, x, y):
    """Total gradient norm of one batch at initialisation (no update): what a relative clip is measured on."""
    model.zero_grad()
    loss_fn(model(x), y).backward()
    g = total_norm(grad_norms(model))
    model.zero_grad()
    return g


def iteration_pace_ms(model, opt_spec, lr, loss_fn, x, y, batch, seed, warm_s=0.5, timed_s=1.0, cap=4000):
    """Wall time of one training iteration of this model, optimizer and batch at its steady pace, in ms: the
    lower quartile over `timed_s` seconds of iterations (10 at least) of a copy, after `warm_s` seconds of
    warm-up ones (3 at least). A young process runs its first seconds slower (allocations, first kernel
    choices), and a median taken there over-estimated the pace by up to half again, which made a run shorter
    than asked. At most `cap` iterations in all: where the warm-up alone reaches it, its times stand in."""
    m, o, gen = probe_copy(model, opt_spec, lr, seed)
    left = cap

    def iterations(seconds, fewest):
        """Times iterations until they add up to `seconds` and number `fewest` or more, or the cap is reached."""
        nonlocal left
        times, spent = [], 0.0
        while left and not (spent >= seconds and len(times) >= fewest):
            idx = torch.randint(len(y), (batch,), generator=gen)
            started = time.perf_counter()
            o.zero_grad()
            loss_fn(m(x[idx]), y[idx]).backward()
            grad_norms(m)
            o.step()
            times.append(time.perf_counter() - started)
            spent += times[-1]
            left -= 1
        return times

    warm = iterations(warm_s, 3)
    times = iterations(timed_s, 10) if left else warm
    return statistics.quantiles(times, n=4)[0] * 1000.0 if len(times) >= 2 else times[0] * 1000.0


def run(config, folder):
    torch.manual_seed(config["seed"])
    torch.set_num_threads(int(config["num_threads"]))
    gen = torch.Generator().manual_seed(config["seed"] + 1)
    x, y, image_shape, info = datasets.load(config["dataset"]["name"], config["seed"],
                                            config["dataset"].get("num_samples"),
                                            config["dataset"].get("label_noise") or 0.0)
    config["dataset"] = info
    config["task"] = info["task"]
    config["loss"] = "mse" if info["task"] == "regression" else "cross_entropy"
    mc = config["model"]
    model = models.build(mc, x.shape[1], info.get("num_classes", 1), image_shape)
    mc["init"] = "pytorch_default" if mc.get("init_gain") is None else f"normal(0, ({mc['init_gain']} * kaiming)^2)"
    mc["num_parameters"] = sum(p.numel() for p in model.parameters())
    mc["num_param_tensors"] = len(list(model.parameters()))
    if mc["type"] == "mlp":
        mc["hidden"] = [int(mc["width"])] * int(mc["depth"])
    lr_spec = config.get("lr")
    if isinstance(lr_spec, dict) and "times_divergence" in lr_spec:
        lr_div = divergence_lr(config, model, loss_fn_for(config), x, y, int(config["batch_size"]),
                               config["seed"] + 4)
        lr0 = float(lr_spec["times_divergence"]) * lr_div
        config["lr_range_test"] = {"divergence_lr": lr_div, "method": "exponential sweep 1e-5..10 over 60 steps"}
    else:
        lr0 = resolve_lr(config)
    config["lr"] = lr0
    config["optimizer"]["lr"] = lr0
    opt = make_optimizer(config["optimizer"], model.parameters(), lr0)
    loss_fn = loss_fn_for(config)
    batch = int(config["batch_size"])
    n = len(y)
    if batch > n:
        raise SystemExit(f"error: batch_size {batch} is larger than the dataset ({n} samples)")
    steps_spec = config["steps"]
    if isinstance(steps_spec, dict):
        seconds = float(steps_spec["seconds"])
        pace_ms = iteration_pace_ms(model, config["optimizer"], lr0, loss_fn, x, y, batch, config["seed"] + 6)
        config["steps"] = max(1, int(round(seconds * 1000.0 / pace_ms)))
        config["steps_budget"] = {"seconds": seconds, "probed_ms_per_iteration": round(pace_ms, 3)}
    steps = int(config["steps"])
    config["steps_per_epoch"] = n // batch
    order_name = config.get("data_order") or "fresh_shuffle"
    config["shuffle"] = order_name == "fresh_shuffle"
    sb = config.get("shuffle_buffer")
    buffer = int(round(float(sb["fraction_of_dataset"]) * n)) if isinstance(sb, dict) else int(sb or 0)
    config["shuffle_buffer"] = buffer or None
    order = data_order.EpochOrder(order_name, y, x, config["seed"] + 2)
    clip = config.get("clip_threshold")
    if isinstance(clip, dict):
        probe = torch.randperm(n, generator=torch.Generator().manual_seed(config["seed"] + 3))[:batch]
        g0 = initial_grad_norm(model, loss_fn, x[probe], y[probe])
        clip = float(clip["times_initial_grad_norm"]) * g0
    config["clip_threshold"] = None if clip is None else float(clip)
    config["cpu_count"] = os.cpu_count()
    config["world_size"] = 1
    config["framework"] = f"pytorch {torch.__version__} (cpu)"
    config["profiler"] = {"schedule": PROFILE,
                          "profiled_steps": list(range(PROFILE["wait"] + PROFILE["warmup"],
                                                       PROFILE["wait"] + PROFILE["warmup"] + PROFILE["active"]))}

    os.makedirs(folder, exist_ok=True)
    trace_path = os.path.join(folder, "trace.json")
    # record_shapes: the operators' input shapes (Kineto's "Input Dims"), as the profiler tutorial and HTA
    # set it; the batch size shows in the first layer's input.
    prof = torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True,
                                  schedule=torch.profiler.schedule(**PROFILE, repeat=1),
                                  on_trace_ready=lambda p: trace_export.export_chrome_trace(p, trace_path))
    corruption = config.get("data_corruption") or None
    corrupt_steps = set()
    if corruption:
        first = int(float(corruption["at_fraction"]) * steps)
        corrupt_steps = set(range(first, min(steps, first + int(corruption["batches"]))))
        corruption["steps"] = sorted(corrupt_steps)
        noise_gen = torch.Generator().manual_seed(config["seed"] + 5)
    config["data_corruption"] = corruption
    precision = mixed_precision.GradientPrecision(config)
    job = config.get("competing_job") or None
    job_step = None
    if job:
        job_step = int(float(job["at_fraction"]) * steps)
        job["step"] = job_step
    config["competing_job"] = job
    losses, clipped = [], 0
    with HostSampler(os.path.join(folder, "host_metrics.jsonl")), \
            casefolder.JsonLines(os.path.join(folder, "metrics.jsonl")) as log, prof, \
            contextlib.ExitStack() as neighbours:
        source = batches(order, batch, buffer, gen)
        for step in range(steps):
            if step == job_step:
                # Another job lands on the node mid-run and stays: from here on it takes CPU time.
                neighbours.enter_context(sidecars.running(int(job["busy_processes"])))
            started = time.perf_counter()
            lr = lr0 * lr_factor(config["lr_schedule"], step, steps)
            for group in opt.param_groups:
                group["lr"] = lr
            with torch.profiler.record_function("data_loading"):
                epoch, idx = next(source)
                xb, yb = x[idx], y[idx]
                if step in corrupt_steps:
                    # Corrupt records (bytes decoded as another type): values with nothing of the
                    # sample left, at `input_gain` times the inputs' spread.
                    xb = float(corruption["input_gain"]) * torch.randn(xb.shape, generator=noise_gen)
            opt.zero_grad()
            with torch.profiler.record_function("forward"):
                loss = loss_fn(model(xb), yb)
            scale = precision.scale
            with torch.profiler.record_function("backward"):
                precision.scaled(loss).backward()
            with torch.profiler.record_function("optimizer_step"):
                applied = precision.unscale(model)
                # A skipped iteration's gradients overflowed: no norm of them is logged (Megatron logs
                # none either), and no update is made.
                layers, g = {}, None
                if applied:
                    layers = grad_norms(model)
                    g = total_norm(layers)
                    if clip is not None:
                        torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
                        clipped += g > clip
                    opt.step()
            losses.append(loss.item())
            elapsed_ms = (time.perf_counter() - started) * 1000.0
            log.write({"step": step, "time": round(time.time(), 6), "epoch": epoch, "loss": loss.item(),
                       "grad_norm": g, "lr": lr, "clip_threshold": config["clip_threshold"],
                       "layer_grad_norms": layers, "iteration_time_ms": round(elapsed_ms, 4),
                       **precision.log_fields(scale, applied)})
            prof.step()
    return losses, clipped, precision


def measured(losses, clipped, precision):
    finite = [v for v in losses if math.isfinite(v)]
    edge = max(1, len(losses) // 10)
    head = sorted(v for v in losses[:edge] if math.isfinite(v))
    tail = sorted(v for v in losses[-edge:] if math.isfinite(v))
    out = {"steps": len(losses), "nonfinite_loss_steps": len(losses) - len(finite),
           "clipped_steps_fraction": round(clipped / max(1, len(losses)), 3)}
    if precision.scaler:
        out.update({"skipped_iterations": precision.skipped,
                    "skipped_fraction": round(precision.skipped / max(1, len(losses)), 3),
                    "final_loss_scale": precision.scale})
    if head and tail:
        out.update({"loss_init": round(head[len(head) // 2], 4), "loss_last": round(tail[len(tail) // 2], 4),
                    "loss_last_over_init": round(tail[len(tail) // 2] / max(head[len(head) // 2], 1e-12), 3)})
    return out


def main(argv=None):
    faults = injector.faults_of("training")
    ap = options.parser(__doc__.splitlines()[0], faults)
    args = ap.parse_args(argv)
    config = default_config(args.seed)
    fault_params = injector.inject("training", args.fault, args.magnitude, config, args.seed)
    sets = options.parse_sets(args.set)
    options.apply_sets(config, sets)
    fault_params = training_faults.as_run(args.fault, fault_params, config)
    variant = {
        "optimizer": optimizer_key(config["optimizer"]),
        "lr_schedule": config["lr_schedule"].get("kind", "constant"),
        "model": config["model"].get("type", "mlp"),
        "dataset": config["dataset"]["name"],
        "batch_size": config["batch_size"],
        "steps": config["steps"],
        "data_order": config.get("data_order") or "fresh_shuffle",
        "shuffle_buffer": config.get("shuffle_buffer"),
        "threads": config["num_threads"],
        "magnitude": args.magnitude if args.fault != "none" else "none",
    }
    # Other tenants' processes (host_input_bound) are there from the start: data loading and the model's
    # set-up compete with them too, not only the training loop.
    with sidecars.running(int(config.get("competing_busy_processes") or 0)):
        losses, clipped, precision = run(config, args.output)
    root = "healthy" if args.fault == "none" else args.fault
    m = measured(losses, clipped, precision)
    notes = (f"Measured: loss {m.get('loss_init')} -> {m.get('loss_last')} (ratio {m.get('loss_last_over_init')}), "
             f"{m['nonfinite_loss_steps']} non-finite steps of {m['steps']}, "
             f"{round(100 * m['clipped_steps_fraction'])}% of the steps clipped.")
    casefolder.write_json(os.path.join(args.output, "config.json"), config)
    hidden = {"order_kind": data_order.KIND[variant["data_order"]]}
    casefolder.write_expected(args.output, "training", root, fault_params, variant, notes, m, hidden)


if __name__ == "__main__":
    main()
