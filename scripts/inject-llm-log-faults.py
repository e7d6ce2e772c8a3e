#!/usr/bin/env python3
"""Labelled large-model training logs: a fault written into a real console log, the way it shows there.

    scripts/inject-llm-log-faults.py --input LOG --fault ID --output DIR [--at 0.5] [--magnitude medium]
    scripts/inject-llm-log-faults.py --synthesize 400 --output DIR          # a healthy Megatron log

LOG is a Megatron-LM / Megatron-DeepSpeed / MindSpeed-LLM stdout log (iteration lines) or an llm.c
step log (`s:N trl:X`). DIR receives the log under its own name and `expected.json` (FORMAT.md of the
case corpus: root_cause, healthy, fault_params, notes), so that `cann-debug eval --cases` scores them.

Faults (the iterations they touch start at --at, a fraction of the logged iterations):
  loss_spike           the loss jumps (x1.4 / x1.8 / x3 by magnitude) within two rows and decays back over
                       about 4% of the run; the grad norm jumps with it
  divergence           the loss climbs from there on to 1.6 / 2.5 / 4 times its level, the grad norm
                       grows tenfold, and the last rows are NaN (Megatron counts them as nan iterations)
  loss_scale_overflow  the fp16 loss scale halves every row down to 1 and every iteration of each interval
                       is skipped from then on (Megatron logs only)
  throughput_drop      the elapsed time per iteration is x1.25 / x1.6 / x2.5 over 30% of the run
  hardware_fault       the CUDA error of an uncorrectable ECC error is written after that row and the job
                       dies two rows later with a traceback; dmesg.log beside it holds the node's Xid 48
                       (double-bit error) and Xid 63 (row remapping pending)
  none                 the log unchanged (a labelled healthy copy)

Nothing but the figures of those rows changes: the other lines, their layout and their order are kept.
"""

import argparse
import json
import math
import os
import random
import re
import sys

FAULTS = ["none", "loss_spike", "divergence", "loss_scale_overflow", "throughput_drop", "hardware_fault"]
MAGNITUDES = {"weak": 0, "medium": 1, "strong": 2}

MEGATRON = re.compile(r"^\s*iteration\s+(\d+)/\s*\d+\s*\|")
LLMC = re.compile(r"^s:(\d+) trl:([-+0-9.eE]+|nan|inf)\b")
NUMBER = r"[-+]?(?:\d+\.?\d*(?:[eE][-+]?\d+)?|nan|inf)"


def field_pattern(names):
    return re.compile(r"(" + "|".join(re.escape(n) for n in names) + r")(\s*:\s*)(" + NUMBER + r")")


LOSS = field_pattern(["lm loss", "lm-loss"])
GRAD = field_pattern(["grad norm"])
SCALE = field_pattern(["loss scale"])
ELAPSED = field_pattern(["elapsed time per iteration (ms)"])
SKIPPED = field_pattern(["number of skipped iterations"])
NANS = field_pattern(["number of nan iterations"])


def get(pattern, line):
    m = pattern.search(line)
    return float(m.group(3)) if m else None


def put(pattern, line, value, fmt):
    def repl(m):
        return m.group(1) + m.group(2) + (fmt(value) if math.isfinite(value) else "nan")
    return pattern.sub(repl, line, count=1)


def sci(v):
    return f"{v:.6E}"


def fixed3(v):
    return f"{v:.3f}"


def fixed1(v):
    return f"{v:.1f}"


def integer(v):
    return f"{int(round(v)):3d}"


def synthesize(iterations, seed):
    """A healthy Megatron-LM log: warm-up then cosine rate, a power-law loss with minibatch noise."""
    rng = random.Random(seed)
    lines = ["using world size: 16, data-parallel size: 2, tensor-model-parallel size: 4, "
             "pipeline-model-parallel size: 2",
             "training ...",
             "[before the start of training step] datetime: 2024-05-01 10:00:00"]
    warmup = max(10, iterations // 20)
    for it in range(1, iterations + 1):
        lr = 3e-4 * (it / warmup if it <= warmup else
                     0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * (it - warmup) / (iterations - warmup))))
        loss = 2.2 + 8.6 * (it + 5) ** -0.45 + rng.gauss(0, 0.015)
        grad = 0.9 + 4.0 * math.exp(-it / 30) + abs(rng.gauss(0, 0.08))
        ms = 1450 + rng.gauss(0, 25)
        lines.append(
            f" iteration {it:8d}/{iterations:8d} | consumed samples: {it * 512:12d} | elapsed time per "
            f"iteration (ms): {ms:.1f} | learning rate: {lr:.6E} | global batch size:   512 | lm loss: "
            f"{loss:.6E} | loss scale: 65536.0 | grad norm: {grad:.3f} | number of skipped iterations:   0 | "
            f"number of nan iterations:   0 |")
    return lines


def inject(lines, fault, at, magnitude, rng):
    rows = [i for i, l in enumerate(lines) if MEGATRON.match(l) or LLMC.match(l)]
    if len(rows) < 20:
        sys.exit(f"error: only {len(rows)} iteration lines; at least 20 are needed to place a fault")
    megatron = MEGATRON.match(lines[rows[0]]) is not None
    first = max(1, min(len(rows) - 5, int(at * len(rows))))
    start_iter = iteration_of(lines[rows[first]])
    params = {"at_fraction": at, "start_iteration": start_iter, "magnitude": magnitude}
    m = MAGNITUDES[magnitude]
    out = list(lines)

    def loss_of(i):
        l = out[rows[i]]
        return get(LOSS, l) if megatron else float(LLMC.match(l).group(2))

    def set_loss(i, v):
        l = out[rows[i]]
        if megatron:
            out[rows[i]] = put(LOSS, l, v, sci)
        else:
            mm = LLMC.match(l)
            out[rows[i]] = l[:mm.start(2)] + (f"{v:.6f}" if math.isfinite(v) else "nan") + l[mm.end(2):]

    if fault == "none":
        pass
    elif fault == "loss_spike":
        height = [0.4, 0.8, 2.0][m]
        decay = max(3, len(rows) // 25)
        params.update(height=height, rows=2 + 2 * decay)
        for k in range(2 + 2 * decay):
            i = first + k
            if i >= len(rows):
                break
            shape = (0.6, 1.0)[k] if k < 2 else math.exp(-(k - 1) / decay)
            set_loss(i, loss_of(i) * (1 + height * shape))
            if megatron and get(GRAD, out[rows[i]]) not in (None, 0.0):
                out[rows[i]] = put(GRAD, out[rows[i]], get(GRAD, out[rows[i]]) * (1 + 3 * height * shape), fixed3)
    elif fault == "divergence":
        factor = [1.6, 2.5, 4.0][m]
        span = len(rows) - first
        nan_from = len(rows) - max(1, span // 10) if megatron else len(rows)
        params.update(final_factor=factor, nan_from_iteration=iteration_of(lines[rows[nan_from]]) if nan_from < len(rows) else None)
        for k, i in enumerate(range(first, len(rows))):
            grow = factor ** ((k + 1) / span)
            if i >= nan_from:
                set_loss(i, float("nan"))
                if NANS.search(out[rows[i]]):
                    out[rows[i]] = put(NANS, out[rows[i]], interval(lines, rows, i), integer)
            else:
                set_loss(i, loss_of(i) * grow)
            if megatron and get(GRAD, out[rows[i]]) not in (None, 0.0):
                out[rows[i]] = put(GRAD, out[rows[i]], get(GRAD, out[rows[i]]) * 10 ** ((k + 1) / span), fixed3)
    elif fault == "loss_scale_overflow":
        if not megatron or SCALE.search(out[rows[0]]) is None or SKIPPED.search(out[rows[0]]) is None:
            sys.exit("error: loss_scale_overflow needs Megatron iteration lines with 'loss scale' and "
                     "'number of skipped iterations'")
        scale = 65536.0
        for i in range(len(rows)):
            if i < first:
                if get(SCALE, out[rows[i]]) is not None and get(SCALE, out[rows[i]]) <= 0:
                    out[rows[i]] = put(SCALE, out[rows[i]], scale, fixed1)  # DeepSpeed's -1: a real scale
                continue
            scale = max(1.0, scale / 2 ** (1 + m))
            out[rows[i]] = put(SCALE, out[rows[i]], scale, fixed1)
            if scale <= 1.0:
                out[rows[i]] = put(SKIPPED, out[rows[i]], interval(lines, rows, i), integer)
        params.update(floor=1.0)
    elif fault == "throughput_drop":
        if not megatron or ELAPSED.search(out[rows[0]]) is None:
            sys.exit("error: throughput_drop needs iteration lines with 'elapsed time per iteration (ms)'")
        slower = [1.25, 1.6, 2.5][m]
        last = min(len(rows), first + max(3, int(0.3 * len(rows))))
        params.update(slowdown=slower, end_iteration=iteration_of(lines[rows[last - 1]]))
        for i in range(first, last):
            out[rows[i]] = put(ELAPSED, out[rows[i]], get(ELAPSED, out[rows[i]]) * slower, fixed1)
    elif fault == "hardware_fault":
        rank = rng.randrange(8)
        bus = f"0000:{0x17 + 16 * rank:02x}:00"
        error = [f"[rank{rank}]: RuntimeError: CUDA error: uncorrectable ECC error encountered",
                 f"[rank{rank}]: CUDA kernel errors might be asynchronously reported at some other API call."]
        tail = ["Traceback (most recent call last):",
                '  File "pretrain_gpt.py", line 210, in <module>',
                "    pretrain(train_valid_test_datasets_provider, model_provider, forward_step)",
                f"RuntimeError: NCCL communicator was aborted on rank {rank}. Original reason for failure was: "
                "CUDA error: uncorrectable ECC error encountered"]
        cut = rows[min(len(rows) - 1, first + 2)]
        out = out[:rows[first] + 1] + error + out[rows[first] + 1:cut + 1] + tail
        # The node's kernel log has the Xid of the double-bit error (dmesg -T).
        kernel = [f"[Wed May  1 10:43:12 2024] NVRM: Xid (PCI:{bus}): 48, pid=4{rank}211, name=python, "
                  "An uncorrectable double bit error (DBE) has been detected on GPU in the framebuffer at "
                  "partition 6, subpartition 0.",
                  f"[Wed May  1 10:43:12 2024] NVRM: Xid (PCI:{bus}): 63, pid=4{rank}211, name=python, "
                  "Row remapping event: Pending remapping."]
        params.update(xid=48, rank=rank, pci=bus, extra_files={"dmesg.log": kernel})
    return out, params


def iteration_of(line):
    m = MEGATRON.match(line) or LLMC.match(line)
    return int(m.group(1))


def interval(lines, rows, i):
    """Iterations one log row covers (the step gap to the previous row, 1 for the first)."""
    if i == 0:
        return 1
    return max(1, iteration_of(lines[rows[i]]) - iteration_of(lines[rows[i - 1]]))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--input", help="a Megatron / DeepSpeed / MindSpeed or llm.c log")
    p.add_argument("--synthesize", type=int, metavar="N", help="write a healthy N-iteration Megatron log instead")
    p.add_argument("--fault", choices=FAULTS, default="none")
    p.add_argument("--magnitude", choices=list(MAGNITUDES), default="medium")
    p.add_argument("--at", type=float, default=None, help="where the fault starts, a fraction of the rows")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--output", required=True, help="folder for the log and expected.json")
    a = p.parse_args()
    if (a.input is None) == (a.synthesize is None):
        p.error("give exactly one of --input and --synthesize")
    rng = random.Random(a.seed)
    if a.synthesize:
        lines, name, source = synthesize(a.synthesize, a.seed), "train.log", "synthesized"
    else:
        try:
            with open(a.input, encoding="utf-8", errors="replace") as f:
                lines = f.read().splitlines()
        except OSError as e:
            sys.exit(f"error: {a.input}: {e.strerror}")
        name, source = os.path.basename(a.input), a.input
    at = a.at if a.at is not None else {"divergence": 0.6, "hardware_fault": 0.7}.get(a.fault, 0.5)
    if not 0.0 < at < 1.0:
        p.error("--at must be between 0 and 1")
    out, params = inject(lines, a.fault, at, a.magnitude, rng)
    os.makedirs(a.output, exist_ok=True)
    with open(os.path.join(a.output, name), "w", encoding="utf-8") as f:
        f.write("\n".join(out) + "\n")
    for extra, text in params.pop("extra_files", {}).items():
        with open(os.path.join(a.output, extra), "w", encoding="utf-8") as f:
            f.write("\n".join(text) + "\n")
        params.setdefault("files", []).append(extra)
    expected = {"scenario": "training", "root_cause": "healthy" if a.fault == "none" else a.fault,
                "healthy": a.fault == "none", "fault_params": params,
                "notes": f"{a.fault} injected into {source} by scripts/inject-llm-log-faults.py",
                "variant": {"source": name, "magnitude": a.magnitude}}
    with open(os.path.join(a.output, "expected.json"), "w", encoding="utf-8") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
