"""Training faults (scenario "training"). Each changes what train.py builds, as the mistake does in real code.

Relative settings are resolved by train.py after `--set` (so they follow the optimizer or model a matrix
chose): `lr: {"times_divergence": k}` is k times the rate at which an LR range test of the run's model, optimizer and
data diverges; `clip_threshold:
{"times_initial_grad_norm": f}` is f times the total gradient norm of the first batch at initialisation.
A `--set lr=...` or `--set clip_threshold=...` replaces them with a plain number (the fix).
"""
import os

from .injector import pick, register


@register("lr_too_high", "training",
          "optimizer constructed with a learning rate far above what the model and optimizer tolerate")
def _lr_too_high(config, magnitude, rng):
    # Relative to the rate at which an LR range test of this very model, optimizer and data diverges, so
    # the fault is as strong on an easy dataset with Adam as on a deep network with SGD.
    factor = pick(magnitude, 0.7, 1.5, 4.0)
    config["lr"] = {"times_divergence": factor}
    return {"lr_times_divergence": factor}


@register("grad_clip_too_low", "training",
          "clip_grad_norm_ with a max norm far below the gradient norm: nearly every update is shrunk")
def _clip_too_low(config, magnitude, rng):
    fraction = pick(magnitude, 0.2, 0.05, 0.01)
    config["clip_threshold"] = {"times_initial_grad_norm": fraction}
    return {"clip_times_initial_grad_norm": fraction}


def _plain_stack(config, **layers):
    """Makes the model a plain stack (mlp or cnn) without normalisation, with `layers` set on it; returns
    its type. Residual sums and attention normalise or add paths, so these mistakes are written as stacks."""
    model = config.setdefault("model", {})
    if model.get("type") not in ("mlp", "cnn"):
        model["type"] = "mlp"
    model.update({"norm": False, **layers})
    return model["type"]


@register("gradient_explosion", "training",
          "deep unnormalised network with a hand-written init larger than Kaiming's and no clipping")
def _explosion(config, magnitude, rng):
    depth, gain = pick(magnitude, (9, 1.3), (11, 1.45), (14, 1.6))
    kind = _plain_stack(config, depth=depth, init_gain=gain, act="relu")
    config["clip_threshold"] = None
    return {"depth": depth, "init_gain_vs_kaiming": gain, "model_type": kind}


@register("vanishing_gradient", "training",
          "deep stack of saturating (sigmoid) layers without normalisation or skip connections")
def _vanishing(config, magnitude, rng):
    depth = pick(magnitude, 7, 10, 14)
    kind = _plain_stack(config, depth=depth, act="sigmoid", init_gain=None)
    return {"depth": depth, "activation": "sigmoid", "model_type": kind}


@register("unshuffled_data", "training",
          "loader without a fresh shuffle per epoch over data stored in order (sorted, in class blocks)")
def _unshuffled(config, magnitude, rng):
    # A permutation drawn once and reused is not this fault: its batches are random samples (data_order.py).
    order = config.get("data_order")
    if order in (None, "fresh_shuffle", "same_permutation"):
        order = rng.choice(["sorted_by_label", "class_blocks", "sorted_by_feature"])
    # A streaming shuffle buffer (tf.data / webdataset style) over stored-order data: the larger the buffer,
    # the weaker the correlation between neighbouring batches. Expressed as a fraction of the dataset.
    buffer_fraction = pick(magnitude, 0.1, 0.03, 0.0)
    config["data_order"] = order
    config["shuffle"] = False
    config["shuffle_buffer"] = {"fraction_of_dataset": buffer_fraction}
    return {"data_order": order, "shuffle_buffer_fraction": buffer_fraction}


@register("batch_too_small", "training", "a batch of a few samples: very noisy updates, little work per step")
def _batch_too_small(config, magnitude, rng):
    batch = pick(magnitude, 4, 2, 1)
    config["batch_size"] = batch
    return {"batch_size": batch}


@register("loss_spike", "training",
          "a few consecutive batches of corrupt records (a damaged shard) let through mid-run")
def _loss_spike(config, magnitude, rng):
    # A damaged shard whose records decode as noise (at several times the inputs' spread) but keep their
    # labels: the loss jumps on its batches and the large update they make throws the next steps off; the
    # run recovers as the ordinary batches come back.
    # At least two batches: a loss up for one row is one hard batch, which the diagnosis counts as a minor
    # spike and no fault (docs/features-training.md, "Spikes").
    batches, gain = pick(magnitude, (2, 4.0), (3, 8.0), (4, 16.0))
    at = round(rng.uniform(0.35, 0.65), 3)
    config["data_corruption"] = {"at_fraction": at, "batches": batches, "input_gain": gain}
    return {"corrupt_batches": batches, "input_gain": gain, "at_fraction": at}


@register("loss_scale_overflow", "training",
          "fp16 with a dynamic loss scaler told to grow its scale again after a few clean iterations: the "
          "scale climbs back into overflow as soon as it has backed off, and every few iterations is skipped")
def _loss_scale_overflow(config, magnitude, rng):
    # Megatron's --loss-scale-window (GradScaler's growth_interval) is the number of clean iterations
    # before the scale doubles; at 1-8 instead of the customary 1000-2000, with no hysteresis, the scale
    # oscillates between the largest level the gradients fit in and the next, which overflows: one
    # iteration in window + 1 is skipped (50% at 1, 11% at 8).
    window = pick(magnitude, 8, 4, 1)
    config.update({"fp16": True, "bf16": False, "loss_scale_window": window, "hysteresis": 1})
    return {"precision": "fp16", "loss_scale_window": window, "hysteresis": 1}


def busy_processes(magnitude):
    """Another tenant's busy processes for a fault of `magnitude`: 1, 2 or 4 per core of this node."""
    per_core = pick(magnitude, 1, 2, 4)
    return per_core, per_core * (os.cpu_count() or 1)


@register("host_input_bound", "training",
          "other tenants' jobs on the node take its CPUs: busy processes beside the run, 1/2/4 per core")
def _host_input_bound(config, magnitude, rng):
    # A CPU run is its own input pipeline and device: processes that take the cores stall both. The
    # run's host_metrics.jsonl shows them (a run queue beyond the cores while other processes use the CPUs).
    per_core, count = busy_processes(magnitude)
    config["competing_busy_processes"] = count
    return {"competing_busy_processes": count, "per_core": per_core}


@register("throughput_drop", "training",
          "another job lands on the node mid-run and stays: busy processes, 1/2/4 per core, from 60-75% of the "
          "steps to the end; every iteration after it is slower")
def _throughput_drop(config, magnitude, rng):
    # The run's own iterations are unchanged: what changes is the node under them, as when a neighbour's
    # job, a runaway evaluation or a checkpoint copy starts on a shared machine. It starts late enough that
    # the slowed iterations stay a minority of the run: the run's median is its normal pace. The log shows
    # it (iteration_time_ms); a run shorter than two 10-second windows is too short to read a drop from
    # (docs/features-training.md, step_time.slowdown).
    per_core, count = busy_processes(magnitude)
    at = round(rng.uniform(0.6, 0.75), 3)
    config["competing_job"] = {"at_fraction": at, "busy_processes": count}
    return {"busy_processes": count, "per_core": per_core, "at_fraction": at}


def as_run(fault_id, fault_params, config):
    """`fault_params` as the run will use them. `--set` is applied after the fault and wins over it, so a
    matrix that sets `data_order` or `batch_size` itself (or a fix tried on the faulted program) changes
    what ran; expected.json must record that, not the fault's first choice. A relative rate or clip
    threshold replaced by a plain number is recorded as `replaced_by_set`."""
    out = dict(fault_params)
    if fault_id == "unshuffled_data":
        out["data_order"] = config.get("data_order") or "fresh_shuffle"
        buffer = config.get("shuffle_buffer")
        out["shuffle_buffer_fraction"] = float(buffer["fraction_of_dataset"]) if isinstance(buffer, dict) else 0.0
    elif fault_id == "batch_too_small":
        out["batch_size"] = config["batch_size"]
    elif fault_id == "lr_too_high" and not isinstance(config.get("lr"), dict):
        out["replaced_by_set"] = {"lr": config.get("lr")}
    elif fault_id == "grad_clip_too_low" and not isinstance(config.get("clip_threshold"), dict):
        out["replaced_by_set"] = {"clip_threshold": config.get("clip_threshold")}
    if fault_id == "loss_scale_overflow":
        out.update({"precision": "fp16" if config.get("fp16") else "bf16" if config.get("bf16") else "fp32",
                    "loss_scale_window": config.get("loss_scale_window"), "hysteresis": config.get("hysteresis")})
    if fault_id == "host_input_bound":
        out["competing_busy_processes"] = int(config.get("competing_busy_processes") or 0)
    if fault_id == "throughput_drop" and not config.get("competing_job"):
        out["replaced_by_set"] = {"competing_job": config.get("competing_job")}
    if fault_id == "loss_spike" and not config.get("data_corruption"):
        out["replaced_by_set"] = {"data_corruption": config.get("data_corruption")}
    return out
