"""Inference faults (scenario "inference"). Each changes what serve.py builds, as the mistake does in real code.

The program keys they set are read by serve.py after `--set`, so a `--set` of the same key is the fix tried
on the faulted program (e.g. `--fault no_batching --set max_batch_size=8`). Relative settings follow the
machine: `client.rate_factor` is a multiple of the single-request capacity serve.py measures at start-up, and
`num_threads` is a multiple of the core count.
"""
import os

from .injector import pick, register


def _cores():
    return os.cpu_count() or 1


@register("unfused_operators", "inference",
          "conv + batch-norm model served without torch.jit.freeze / optimize_for_inference: batch norm, "
          "convolution and ReLU run as separate (slow-path) operators")
def _unfused(config, magnitude, rng):
    share = pick(magnitude, 0.25, 0.6, 1.0)
    if share >= 1.0:
        # The whole network unfused: the eager nn.Module, or a scripted module nobody froze.
        fmt = rng.choice(["eager", "torchscript"])
        config["model_format"] = fmt
        config["model"]["eager_tail_fraction"] = 0
        return {"model_format": fmt, "unfused_share_of_body": 1.0}
    # Part of the network unfused: the backbone is frozen and optimised, the last body stages stayed an eager
    # nn.Module (the usual outcome when part of a model does not script and is left out of the conversion).
    config["model_format"] = "torchscript_frozen_opt"
    config["model"]["eager_tail_fraction"] = share
    return {"model_format": "torchscript_frozen_opt", "eager_tail_fraction": share}


@register("thread_oversubscription", "inference",
          "intra-op threads far above the core count (torch.set_num_threads), with busy sidecar processes "
          "competing for the same cores at the strong magnitude")
def _oversubscription(config, magnitude, rng):
    per_core = pick(magnitude, 2, 8, 16)
    sidecars = pick(magnitude, 0, 0, _cores())
    config["num_threads"] = per_core * _cores()
    config["competing_busy_processes"] = sidecars
    return {"num_threads": config["num_threads"], "threads_per_core": per_core,
            "competing_busy_processes": sidecars}


@register("preprocessing_bottleneck", "inference",
          "slow Python-side preprocessing (per-request numpy, row loops, per-pixel loops) instead of batched "
          "torch ops; the model is a small share of the request")
def _preprocessing(config, magnitude, rng):
    impl = pick(magnitude, "numpy_per_request", "numpy_rowwise_loop", "python_per_pixel")
    config["preprocessing"]["implementation"] = impl
    return {"preprocessing": impl}


@register("no_batching", "inference",
          "requests served one at a time (max_batch_size 1) under an offered load above the single-request "
          "capacity: the queue grows although batching would absorb it")
def _no_batching(config, magnitude, rng):
    load = pick(magnitude, 1.15, 1.5, 2.0)
    config["max_batch_size"] = 1
    config["client"]["rate_factor"] = load
    config["client"]["target_rate_rps"] = None
    return {"max_batch_size": 1, "offered_load_vs_single_capacity": load}


@register("cold_start", "inference",
          "no warm-up before live traffic: first-call TorchScript profiling/optimisation, and (medium, strong) "
          "the model prepared lazily inside the first request, (strong) after loading its checkpoint file")
def _cold_start(config, magnitude, rng):
    config["warmup_requests"] = 0
    config["lazy_model_init"] = magnitude in ("medium", "strong")
    config["model_artifact"] = "checkpoint_file" if magnitude == "strong" else "in_memory"
    return {"warmup_requests": 0, "lazy_model_init": config["lazy_model_init"],
            "model_artifact": config["model_artifact"]}
