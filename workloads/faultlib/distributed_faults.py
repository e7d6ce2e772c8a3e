"""Faults of the distributed scenario (ddp.py: gloo data-parallel training on localhost).

Each fault changes the configuration keys from which ddp.py's ranks build their program; nothing edits a
log afterwards. The keys a fault sets describe the program and its environment (a rank's input pipeline, how
the batch is split, how gradients are synchronised); ddp.py leaves them out of config.json unless a user
would see them there (`wrapper`, `bucket_cap_mb`).

  straggler_rank     keys straggler.rank / .extra_step_frac / .kind; extra input-pipeline time per step
                     0.3 / 1.0 / 3.0 x the rank's own step time (weak / medium / strong)
  small_bucket_size  key bucket_cap_mb: 0.25-0.5 / 0.05-0.1 / 0.002-0.01 MB (the default is 25)
  no_comm_overlap    key grad_sync (wrapper none, or DDP under no_sync): one flattened / one per layer / one
                     per tensor allreduce after backward
  load_imbalance     keys imbalance.rank / .factor / .pattern: batch sizes max/min 1.5 / 2.5 / 4
  expert_imbalance   keys expert_router.rank / .bias, moe_aux_loss_coeff 0, model.type moe (unless set):
                     the router's logits biased 0.5 / 1.0 / 3.0 toward one rank's experts

A rank of `null` means "drawn from the run's seed once the world size is final" (ddp.py resolves it after
`--set`, so a matrix can set `world_size` after the fault chose nothing yet); a negative rank counts from the
last rank (-1 = the last one). `describe` gives the fault parameters of the final program for expected.json.
"""
import random

from .injector import pick, register

STRAGGLER_KINDS = ("blocking_read", "cpu_decode")
IMBALANCE_PATTERNS = ("one_heavy", "one_light", "ramp")
GRAD_SYNC = ("overlap", "after_backward_flat", "after_backward_per_layer", "after_backward_per_param")


@register("straggler_rank", "distributed",
          "one rank spends extra time per step in its input pipeline (a blocking read from slow storage, or "
          "extra CPU decoding); the other ranks wait for it in the gradient allreduce")
def _straggler(config, magnitude, rng):
    # The extra time is a multiple of the slow rank's own step time, measured by that rank on its first
    # steps (before profiling starts), so a weak straggler is weak on a small model and on a large one.
    config["straggler"] = {
        "rank": None,
        "extra_step_frac": pick(magnitude, 0.3, 1.0, 3.0),
        # blocking_read: waits (sleep) like a read from a slow network filesystem, the core stays free;
        # cpu_decode: burns CPU in Python/numpy like heavy augmentation, competing with the other ranks.
        "kind": rng.choice(STRAGGLER_KINDS),
    }
    return describe("straggler_rank", config)


@register("small_bucket_size", "distributed",
          "DistributedDataParallel built with bucket_cap_mb far below the default 25 MB: the gradients are "
          "allreduced in many small buckets, each paying the collective's fixed latency")
def _small_bucket(config, magnitude, rng):
    # PyTorch 1.13 DDP puts up to 1 MB of the last layers into its first bucket whatever the cap, so the cap
    # only matters for models of more than 1 MB of parameters; below ~the size of one weight tensor every
    # tensor gets a bucket of its own.
    config["wrapper"] = "DistributedDataParallel"
    config["grad_sync"] = "overlap"
    config["bucket_cap_mb"] = rng.choice(pick(magnitude, (0.25, 0.5), (0.05, 0.1), (0.002, 0.005, 0.01)))
    return describe("small_bucket_size", config)


@register("no_comm_overlap", "distributed",
          "gradients are allreduced after backward has finished (no DDP wrapper and a manual allreduce loop, "
          "or DDP under no_sync followed by a manual allreduce) instead of bucket by bucket during backward")
def _no_overlap(config, magnitude, rng):
    # Stronger = more, smaller collectives that all sit after backward: one flattened buffer, one per layer
    # (weight and bias flattened together), one per parameter tensor.
    config["grad_sync"] = pick(magnitude, "after_backward_flat", "after_backward_per_layer",
                               "after_backward_per_param")
    # Both ways occur in real code: a hand-written data-parallel loop without DDP, and DDP whose backward
    # runs under no_sync() (gradient-accumulation code with one micro-batch) plus a manual sync afterwards.
    config["wrapper"] = rng.choice(("none", "DistributedDataParallel"))
    return describe("no_comm_overlap", config)


@register("load_imbalance", "distributed",
          "ranks get unequal amounts of work per step (an uneven batch split): the heavier rank computes "
          "longer and the others wait for it in the allreduce")
def _imbalance(config, magnitude, rng):
    config["imbalance"] = {
        "rank": None,
        # max/min per-rank batch size ratio
        "factor": pick(magnitude, 1.5, 2.5, 4.0),
        # one_heavy: that rank gets factor x the batch; one_light: that rank gets 1/factor of it; ramp: batch
        # sizes grow linearly from 1x to factor x over the ranks, that rank the heaviest.
        "pattern": rng.choice(IMBALANCE_PATTERNS),
    }
    return describe("load_imbalance", config)


@register("expert_imbalance", "distributed",
          "a mixture-of-experts model whose router sends most tokens to the experts of one rank (a router "
          "trained without its load-balancing loss): that rank's experts compute longest every step and the "
          "other ranks wait for it in the MoE's all_to_all")
def _expert_imbalance(config, magnitude, rng):
    if (config.get("model") or {}).get("type") != "moe":
        config["model"] = {"type": "moe"}
    # Logit bias on the hot rank's experts, against the gating noise of standard deviation 1.
    config["expert_router"] = {"rank": None, "bias": pick(magnitude, 0.5, 1.0, 3.0)}
    config["moe_aux_loss_coeff"] = 0.0
    return describe("expert_imbalance", config)


def resolve_rank(rank, world_size, seed, salt):
    """A configured rank as a rank index: null = drawn from the seed, negative = from the end."""
    if rank is None:
        return random.Random(seed * 104729 + salt).randrange(world_size)
    rank = int(rank)
    if not -world_size <= rank < world_size:
        raise SystemExit(f"error: rank {rank} does not exist with world_size {world_size}")
    return rank % world_size


def rank_batch_sizes(config):
    """Samples per step of every rank: batch_size_per_rank, unless `imbalance` splits it unevenly."""
    world, base = int(config["world_size"]), int(config["batch_size_per_rank"])
    imb = config.get("imbalance") or {}
    factor = float(imb.get("factor") or 1.0)
    if not imb or factor == 1.0:
        return [base] * world
    heavy = int(imb["rank"])
    pattern = imb.get("pattern", "one_heavy")
    if pattern == "one_heavy":
        scale = [factor if r == heavy else 1.0 for r in range(world)]
    elif pattern == "one_light":
        scale = [1.0 / factor if r == heavy else 1.0 for r in range(world)]
    elif pattern == "ramp":
        # position 0 .. world-1 after rotating so that `heavy` comes last
        scale = [1.0 + (factor - 1.0) * ((r - heavy - 1) % world) / max(world - 1, 1) for r in range(world)]
    else:
        raise SystemExit(f"error: imbalance.pattern {pattern!r}: expected one of {', '.join(IMBALANCE_PATTERNS)}")
    return [max(1, int(round(base * s))) for s in scale]


def describe(fault_id, config):
    """fault_params of `fault_id` as the final config runs it (after --set and rank resolution)."""
    if fault_id == "straggler_rank":
        s = config.get("straggler") or {}
        return {"straggler_rank": s.get("rank"), "extra_step_frac": s.get("extra_step_frac"),
                "kind": s.get("kind")}
    if fault_id == "small_bucket_size":
        return {"bucket_cap_mb": config.get("bucket_cap_mb"), "wrapper": config.get("wrapper")}
    if fault_id == "no_comm_overlap":
        return {"gradient_sync": config.get("grad_sync"), "wrapper": config.get("wrapper")}
    if fault_id == "expert_imbalance":
        r = config.get("expert_router") or {}
        return {"hot_rank": r.get("rank"), "gate_bias": r.get("bias"),
                "moe_aux_loss_coeff": config.get("moe_aux_loss_coeff")}
    if fault_id == "load_imbalance":
        imb = config.get("imbalance") or {}
        out = {"rank": imb.get("rank"), "factor": imb.get("factor"), "pattern": imb.get("pattern")}
        if imb.get("rank") is not None:
            out["rank_batch_sizes"] = rank_batch_sizes(config)
        return out
    return {}
