#!/usr/bin/python3
"""Online inference (model serving) with PyTorch and an optional injected fault; writes one case folder.

  /usr/bin/python3 workloads/serve.py --fault cold_start --magnitude medium --seed 3 --output runs/r1
  /usr/bin/python3 workloads/serve.py --fault none --set model.arch=mobilenet_like --set max_batch_size=8 ...

The program. An image classifier (10 classes; resnet_small, mobilenet_like, plain_cnn or mlp, scaled by
model.width_multiplier, random weights and batch-norm statistics) is prepared in model_format (eager
nn.Module, torch.jit.script, or torch.jit.freeze + optimize_for_inference) and served to an open-loop client:
requests carry a raw uint8 HWC image and arrive at Poisson times (or in Poisson bursts) that do not depend on
the server. The arrival schedule is replayed against the wall clock in the server's own loop: a request is
queued from its arrival time on, whether or not the server is busy, so queueing is real and no client thread
competes with the server for the GIL. Each loop turn takes the queued requests (up to max_batch_size; 1 =
batching disabled), preprocesses them (resize, scale to 0..1, ImageNet normalisation), runs the model and
postprocesses (softmax, top-3, a JSON response per request). A request's latency is its response time minus
its arrival time. warmup_requests requests run through the server before serving starts, in batches of 1, 2,
..., max_batch_size, 1, 2, ... (each batch size pays its first-call costs there). torch.profiler records the
last served batches (ProfilerStep#N = served batch N, with the user ranges preprocess / forward /
postprocess) into trace.json: it starts late and stops after the last response, because its stop (parsing
the recorded events) takes tens of milliseconds and would otherwise stall live requests. /proc is sampled
into host_metrics.jsonl while the process runs.

The offered load follows the machine. Before serving, a separate probe instance of the same serving pipeline
(same model, format, preprocessing, threads and competing processes) is warmed up and then serves a few
queues of requests one at a time through the serving loop; the median over the queues of the time per
request is the single-request service time, its inverse the single-request capacity, and client.rate_factor
(a fraction or multiple of it, with or without batching) gives the offered rate client.target_rate_rps (a
--set of target_rate_rps overrides it). So a healthy run stays below capacity and a faulted one keeps its
symptom on a slower or faster machine. The probe is its own instance, so the served model keeps its own
first-call costs (what cold_start is about). client.num_requests defaults to client.duration_s seconds of
arrivals (bounded to 40..3000); --set client.num_requests=40 gives a run of a few seconds.

Faults (faultlib/inference_faults.py; `--set KEY=VALUE` is applied after the fault and wins over it):
  unfused_operators         a conv/batch-norm model served (partly) unfrozen, so batch norm, convolution and
                            ReLU run as separate operators (and on small batches the slow non-MKLDNN conv
                            path): weak / medium = the last 25% / 60% of the body stages stay an eager
                            nn.Module behind the frozen backbone (model.eager_tail_fraction), strong = the
                            whole model eager or torch.jit.script without freeze
  thread_oversubscription   torch.set_num_threads at 2x / 8x / 16x the core count; strong also starts busy
                            sidecar processes (competing_busy_processes, one per core)
  preprocessing_bottleneck  per-request Python-side preprocessing instead of the batched torch ops
                            (preprocessing.implementation): weak = numpy float64 per request, medium = a
                            repeated resize (to a 2x canvas, then down) written as Python loops over rows,
                            strong = a per-pixel Python loop
  no_batching               max_batch_size 1 while the offered load is 1.15x / 1.5x / 2x the single-request
                            capacity: the queue grows although batching would absorb it
  cold_start                no warm-up (warmup_requests 0): weak = the TorchScript executor profiles and
                            optimises, and every batch size meets its first call, on live requests; medium =
                            the model is also scripted, frozen and optimised inside the first request
                            (lazy_model_init); strong = that first request also loads the checkpoint from disk
                            first (model_artifact = checkpoint_file). The mlp has no conv kernels to set up and
                            a tiny graph to compile, so its cold start stays small.

What is healthy here. A model with conv + batch-norm (+ ReLU) layers is healthy only as
torchscript_frozen_opt: freezing folds batch norm into the convolution and optimize_for_inference runs
conv(+ReLU) fused (MKLDNN); the eager or unfrozen form is the unfused_operators fault. The mlp has no batch
norm and no convolution: freezing has nothing to fold or fuse there (the frozen graph runs the same
matmul/add/ReLU operators as the eager Linear/ReLU modules), so an eager, scripted or frozen mlp is healthy
and the fault is refused for it. Healthy runs also use num_threads <= cores (on a 2-core machine whose other
tenants keep both cores busy, 2 intra-op threads wait for each other at every parallel region and behave as
oversubscribed: the evaluation matrix keeps 1), no sidecars, a warm-up that covers every batch size, an
offered load below capacity (with or without batching) and the batched torch preprocessing.
Noisy-but-healthy variants: bursty arrivals, batching disabled at a low load, a wider model, a higher
resolution, an eager mlp.

Configuration keys (config.json; --set takes dotted keys): model.arch, model.width_multiplier,
model.eager_tail_fraction, input.raw_image_shape ([H, W, 3]), input.model_input_shape ([3, H, W]),
preprocessing.implementation (torch_batched | numpy_per_request | numpy_rowwise_loop | python_per_pixel),
model_format (eager | torchscript | torchscript_frozen_opt), num_threads, num_interop_threads,
competing_busy_processes, max_batch_size, warmup_requests, lazy_model_init, model_artifact (in_memory |
checkpoint_file), client.kind (open_loop_poisson | open_loop_bursty), client.burst_size, client.rate_factor,
client.target_rate_rps, client.duration_s, client.num_requests, profiler.active (batches profiled),
profiler.window (tail: the last batches, so the profiler's stop delays no request; head: from the first
request, as a schedule with wait=0 profiles a server, its overhead on the first calls).
Derived and written to config.json: batching, fusion, model.num_parameters, cpu_count, framework, the
profiler schedule and profiled_steps.
"""
import json
import os
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

from faultlib import casefolder, injector, options  # noqa: E402
from faultlib import competitors as sidecars  # noqa: E402
from faultlib.hostmetrics import HostSampler  # noqa: E402

ARCHS = ("resnet_small", "mobilenet_like", "plain_cnn", "mlp")
BODY_STAGES = {"resnet_small": 3, "mobilenet_like": 4, "plain_cnn": 3, "mlp": 1}  # stages_of() less stem, head
FORMATS = ("eager", "torchscript", "torchscript_frozen_opt")
PREPROCESSING = ("torch_batched", "numpy_per_request", "numpy_rowwise_loop", "python_per_pixel")
CLIENTS = ("open_loop_poisson", "open_loop_bursty")
MEAN = (0.485, 0.456, 0.406)
STD = (0.229, 0.224, 0.225)
NUM_CLASSES = 10
PROBE_CHUNKS, PROBE_CHUNK = 5, 6   # the capacity probe: 5 queues of 6 requests, served one at a time
MAX_REQUESTS = 3000          # bound of the default (duration-based) request count
MIN_REQUESTS = 40


def default_config(seed):
    return {
        "scenario": "inference",
        "task": "image classification (10 classes), online serving",
        "model": {"arch": "resnet_small", "width_multiplier": 1, "eager_tail_fraction": 0},
        "input": {"raw_image_shape": [80, 80, 3], "raw_dtype": "uint8", "model_input_shape": [3, 64, 64]},
        "preprocessing": {"steps": ["resize", "scale_to_0_1", "normalize(imagenet mean/std)"],
                          "output_dtype": "float32", "implementation": "torch_batched"},
        "model_format": "torchscript_frozen_opt",
        "num_threads": 1,
        "num_interop_threads": 1,
        "competing_busy_processes": 0,
        "max_batch_size": 4,
        "warmup_requests": 40,
        "lazy_model_init": False,
        "model_artifact": "in_memory",
        "client": {"kind": "open_loop_poisson", "rate_factor": 0.5, "target_rate_rps": None,
                   "duration_s": 4.0, "num_requests": None, "burst_size": 4},
        "world_size": 1,
        "seed": seed,
        "profiler": {"active": 15},
    }


# ----------------------------------------------------------------------------------------------- models

def conv_bn_relu(cin, cout, stride=1, kernel=3, groups=1):
    return [nn.Conv2d(cin, cout, kernel, stride, kernel // 2, groups=groups, bias=False),
            nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


class BasicBlock(nn.Module):
    """ResNet basic block: conv-bn-relu, conv-bn, plus the (projected) input, relu."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.relu = nn.ReLU(inplace=True)
        self.down = nn.Identity()
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + self.down(x))


def stages_of(arch, width, input_shape):
    """The model as a list of stages (nn.Modules applied in order); the last one is the classifier head."""
    def ch(c):
        return max(4, int(round(c * width)))

    head = nn.Sequential(nn.AdaptiveAvgPool2d(1), nn.Flatten())
    if arch == "resnet_small":
        c1, c2, c3 = ch(16), ch(32), ch(64)
        return [nn.Sequential(*conv_bn_relu(3, c1, 2)), BasicBlock(c1, c1, 1), BasicBlock(c1, c2, 2),
                BasicBlock(c2, c3, 2), nn.Sequential(head, nn.Linear(c3, NUM_CLASSES))]
    if arch == "mobilenet_like":
        def separable(cin, cout, stride):  # depthwise 3x3 then pointwise 1x1, each with bn + relu
            return nn.Sequential(*conv_bn_relu(cin, cin, stride, groups=cin), *conv_bn_relu(cin, cout, 1, 1))
        c1, c2, c3, c4 = ch(16), ch(32), ch(64), ch(128)
        return [nn.Sequential(*conv_bn_relu(3, c1, 2)), separable(c1, c2, 1), separable(c2, c3, 2),
                separable(c3, c3, 1), separable(c3, c4, 2), nn.Sequential(head, nn.Linear(c4, NUM_CLASSES))]
    if arch == "plain_cnn":
        c1, c2, c3 = ch(16), ch(32), ch(64)
        return [nn.Sequential(*conv_bn_relu(3, c1, 2)),
                nn.Sequential(*conv_bn_relu(c1, c1), nn.MaxPool2d(2)),
                nn.Sequential(*conv_bn_relu(c1, c2), *conv_bn_relu(c2, c2), nn.MaxPool2d(2)),
                nn.Sequential(*conv_bn_relu(c2, c3)),
                nn.Sequential(head, nn.Linear(c3, NUM_CLASSES))]
    if arch == "mlp":  # on the flattened pixels, so its cost grows with the resolution as a CNN's does
        h1, h2 = ch(128), ch(64)
        pixels = int(input_shape[0]) * int(input_shape[1]) * int(input_shape[2])
        return [nn.Sequential(nn.Flatten(), nn.Linear(pixels, h1), nn.ReLU()),
                nn.Sequential(nn.Linear(h1, h2), nn.ReLU()), nn.Sequential(nn.Linear(h2, NUM_CLASSES))]
    raise SystemExit(f"error: model.arch {arch!r}: expected one of {', '.join(ARCHS)}")


def has_batch_norm(arch):
    """Whether the architecture has conv + batch-norm layers that freezing folds (all but the mlp)."""
    return arch != "mlp"


def build_stages(arch, width, input_shape, seed):
    """Same seed, same weights: the probe, the served model and the references are the same network."""
    torch.manual_seed(seed)
    stages = stages_of(arch, width, input_shape)
    for module in nn.ModuleList(stages).modules():
        if isinstance(module, nn.BatchNorm2d):  # trained-looking statistics, so folding changes numbers
            module.running_mean.uniform_(-0.2, 0.2)
            module.running_var.uniform_(0.5, 1.5)
            nn.init.uniform_(module.weight, 0.5, 1.5)
            nn.init.uniform_(module.bias, -0.1, 0.1)
    assert len(stages) - 2 == BODY_STAGES[arch] or arch == "mlp"
    for s in stages:
        s.eval()
    return stages


def fusion_text(config):
    fmt, arch, tail = config["model_format"], config["model"]["arch"], eager_tail(config)
    if not has_batch_norm(arch):
        names = "Linear, ReLU; no batch norm or convolution to fold"
        if fmt == "torchscript_frozen_opt":
            return f"torch.jit.freeze + torch.jit.optimize_for_inference ({names})"
        return f"none ({'eager nn.Module' if fmt == 'eager' else 'torch.jit.script, not frozen'}: {names})"
    if fmt == "eager":
        return "none (eager nn.Module: Conv2d, BatchNorm2d, ReLU as separate modules)"
    if fmt == "torchscript":
        return "none (torch.jit.script without freeze: Conv2d, BatchNorm2d, ReLU run as separate operators)"
    text = "torch.jit.freeze + torch.jit.optimize_for_inference (conv-bn folded, conv+relu fused)"
    if tail:
        text = (f"partial: {text} for the backbone; the last {tail} stage(s) before the classifier run as an "
                f"eager nn.Module (Conv2d, BatchNorm2d, ReLU separate)")
    return text


def eager_tail(config):
    """How many body stages (the last ones before the classifier head) stay eager behind the frozen backbone:
    model.eager_tail_fraction of them, at least one when the fraction is above 0. Only for a conv/batch-norm
    model in the frozen format (the other formats are unfused throughout)."""
    fraction = float(config["model"].get("eager_tail_fraction") or 0.0)
    if (fraction <= 0.0 or config["model_format"] != "torchscript_frozen_opt"
            or not has_batch_norm(config["model"]["arch"])):
        return 0
    body = BODY_STAGES[config["model"]["arch"]]
    return min(body, max(1, int(round(fraction * body))))


def optimised(module):
    return torch.jit.optimize_for_inference(torch.jit.freeze(torch.jit.script(module.eval())))


class Hybrid(nn.Module):
    """A frozen, optimised backbone followed by stages that stayed eager nn.Modules."""

    def __init__(self, frozen, eager):
        super().__init__()
        self.frozen = frozen
        self.eager = eager

    def forward(self, x):
        return self.eager(self.frozen(x))


def prepare(stages, fmt, tail):
    """The servable model in format `fmt` (with `tail` body stages left eager in the frozen format)."""
    whole = nn.Sequential(*stages).eval()
    if fmt == "eager":
        return whole
    if tail:
        cut = len(stages) - 1 - tail
        return Hybrid(optimised(nn.Sequential(*stages[:cut])), nn.Sequential(*stages[cut:]).eval())
    if fmt == "torchscript":
        return torch.jit.script(whole)
    return optimised(whole)


# --------------------------------------------------------------------------------------- preprocessing

def bilinear_taps(n_in, n_out):
    """Source indices and weights of a bilinear resize along one axis (align_corners=False, as F.interpolate)."""
    x = np.clip((np.arange(n_out) + 0.5) * n_in / n_out - 0.5, 0.0, n_in - 1)
    i0 = x.astype(np.int64)
    return i0, np.minimum(i0 + 1, n_in - 1), x - i0


def bilinear_np(img, h, w):
    """HWC float64 image resized to (h, w) by gathering the four neighbours of every output pixel."""
    y0, y1, fy = bilinear_taps(img.shape[0], h)
    x0, x1, fx = bilinear_taps(img.shape[1], w)
    fy, fx = fy[:, None, None], fx[None, :, None]
    top = img[y0][:, x0] * (1.0 - fx) + img[y0][:, x1] * fx
    bottom = img[y1][:, x0] * (1.0 - fx) + img[y1][:, x1] * fx
    return top * (1.0 - fy) + bottom * fy


def rowwise_resize(img, h, w):
    """Bilinear resize of an HWC float image, one np.interp per row and channel, then one blend per row."""
    h_in, w_in = img.shape[:2]
    src_x = np.clip((np.arange(w) + 0.5) * w_in / w - 0.5, 0, w_in - 1)
    xp = np.arange(w_in)
    rows = np.empty((h_in, w, 3))
    for y in range(h_in):
        for c in range(3):
            rows[y, :, c] = np.interp(src_x, xp, img[y, :, c])
    out = np.empty((h, w, 3))
    y0, y1, fy = bilinear_taps(h_in, h)
    for y in range(h):
        out[y] = rows[y0[y]] * (1.0 - fy[y]) + rows[y1[y]] * fy[y]
    return out


class Preprocessor:
    """raw uint8 HWC images -> normalised float32 NCHW batch. `torch_batched` is the healthy implementation;
    the others are the Python-side slow paths of preprocessing_bottleneck, one request at a time (the same
    bilinear resize; numpy_rowwise_loop resizes twice, so its image is slightly smoother)."""

    def __init__(self, implementation, raw_shape, model_shape):
        if implementation not in PREPROCESSING:
            raise SystemExit(f"error: preprocessing.implementation {implementation!r}: expected one of "
                             f"{', '.join(PREPROCESSING)}")
        self.impl = implementation
        self.h_in, self.w_in = int(raw_shape[0]), int(raw_shape[1])
        self.h, self.w = int(model_shape[1]), int(model_shape[2])
        self.mean_t = torch.tensor(MEAN).view(1, 3, 1, 1)
        self.std_t = torch.tensor(STD).view(1, 3, 1, 1)
        self.mean, self.std = np.array(MEAN), np.array(STD)

    def __call__(self, images):
        if self.impl == "torch_batched":
            x = torch.from_numpy(np.stack(images)).permute(0, 3, 1, 2).float()
            x = F.interpolate(x, size=(self.h, self.w), mode="bilinear", align_corners=False)
            return (x / 255.0 - self.mean_t) / self.std_t
        one = {"numpy_per_request": self._per_request, "numpy_rowwise_loop": self._rowwise,
               "python_per_pixel": self._per_pixel}[self.impl]
        return torch.from_numpy(np.stack([one(img) for img in images]).astype(np.float32))

    def _per_request(self, img):
        # Vectorised numpy, but one request at a time and in float64 (a PIL/OpenCV-style per-image transform).
        x = bilinear_np(img.astype(np.float64), self.h, self.w)
        return ((x / 255.0 - self.mean) / self.std).transpose(2, 0, 1)

    def _rowwise(self, img):
        # Resized twice (to a 2x "canonical" canvas, then to the model size), each pass a Python loop over
        # rows and channels, then normalised row by row.
        x = rowwise_resize(rowwise_resize(img.astype(np.float64), 2 * self.h, 2 * self.w), self.h, self.w)
        out = np.empty((3, self.h, self.w))
        for y in range(self.h):
            for c in range(3):
                out[c, y] = (x[y, :, c] / 255.0 - self.mean[c]) / self.std[c]
        return out

    def _per_pixel(self, img):
        pixels = img.tolist()
        out = [[[0.0] * self.w for _ in range(self.h)] for _ in range(3)]
        sy_scale, sx_scale = self.h_in / self.h, self.w_in / self.w
        for y in range(self.h):
            sy = min(max((y + 0.5) * sy_scale - 0.5, 0.0), self.h_in - 1)
            i0 = int(sy)
            i1, fy = min(i0 + 1, self.h_in - 1), sy - i0
            for x in range(self.w):
                sx = min(max((x + 0.5) * sx_scale - 0.5, 0.0), self.w_in - 1)
                j0 = int(sx)
                j1, fx = min(j0 + 1, self.w_in - 1), sx - j0
                for c in range(3):
                    v = ((pixels[i0][j0][c] * (1 - fx) + pixels[i0][j1][c] * fx) * (1 - fy)
                         + (pixels[i1][j0][c] * (1 - fx) + pixels[i1][j1][c] * fx) * fy)
                    out[c][y][x] = (v / 255.0 - MEAN[c]) / STD[c]
        return np.array(out)


# ----------------------------------------------------------------------------------------- the server

class Server:
    """preprocess -> model -> postprocess for one batch of raw images. With lazy_model_init the model is
    prepared (scripted, frozen, optimised) inside the first call, on live traffic; with model_artifact =
    checkpoint_file the network is saved at start-up and the first call loads it from disk first."""

    def __init__(self, config, stages, artifact_dir=None):
        self.pre = Preprocessor(config["preprocessing"]["implementation"], config["input"]["raw_image_shape"],
                                config["input"]["model_input_shape"])
        fmt, tail = config["model_format"], eager_tail(config)
        if config["model_artifact"] == "checkpoint_file":
            path = os.path.join(artifact_dir, "model.pt")
            torch.save(stages, path)  # the deployed checkpoint (written before serving, not on a request)
            self.load = lambda: prepare(torch.load(path), fmt, tail)
        else:
            self.load = lambda: prepare(stages, fmt, tail)
        self.model = None if config["lazy_model_init"] else self.load()

    def __call__(self, images):
        with torch.profiler.record_function("preprocess"):
            x = self.pre(images)
        with torch.profiler.record_function("forward"), torch.no_grad():
            if self.model is None:
                self.model = self.load()
            logits = self.model(x)
        with torch.profiler.record_function("postprocess"):
            probs = torch.softmax(logits, dim=1)
            top_p, top_i = probs.topk(3, dim=1)
            return [json.dumps({"classes": c, "scores": [round(p, 5) for p in s]})
                    for c, s in zip(top_i.tolist(), top_p.tolist())]


def timed(fn, images, calls):
    out = []
    for _ in range(calls):
        t = time.perf_counter()
        fn(images)
        out.append((time.perf_counter() - t) * 1000.0)
    return float(np.median(out))


def single_request_ms(server, images):
    """Single-request service time of the serving loop itself (admission, the three stages, the log line):
    PROBE_CHUNKS queues of PROBE_CHUNK requests, each queued at once and served one at a time. A chunk's time
    per request includes its outliers (a jittery server is not credited with its best calls); the median over
    the chunks keeps one burst of load from another tenant from setting the rate of the whole run."""
    per_request = []
    with casefolder.JsonLines(os.devnull) as sink:
        for _ in range(PROBE_CHUNKS):
            t = time.perf_counter()
            serve(server, images, np.zeros(PROBE_CHUNK), 1, TailProfiler(0), sink)
            per_request.append((time.perf_counter() - t) * 1000.0 / PROBE_CHUNK)
    return float(np.median(per_request))


def warm_up(server, images, count, max_batch):
    """`count` requests in batches of 1, 2, ..., max_batch, 1, 2, ...: every batch size meets the model."""
    done, size = 0, 1
    while done < count:
        take = min(size, count - done)
        server([images[(done + k) % len(images)] for k in range(take)])
        done += take
        size = size % max_batch + 1


def arrival_schedule(client, rate, n, rng):
    """Arrival offsets (s) of an open-loop client: Poisson, or Poisson bursts of burst_size requests with the
    same mean rate (the requests of a burst 0.2 ms apart)."""
    if client["kind"] == "open_loop_poisson":
        return np.cumsum(rng.exponential(1.0 / rate, n))
    if client["kind"] == "open_loop_bursty":
        burst = max(1, int(client.get("burst_size") or 4))
        starts = np.cumsum(rng.exponential(burst / rate, (n + burst - 1) // burst))
        return np.sort(np.repeat(starts, burst)[:n] + np.tile(np.arange(burst) * 2e-4, len(starts))[:n])
    raise SystemExit(f"error: client.kind {client['kind']!r}: expected one of {', '.join(CLIENTS)}")


class TailProfiler:
    """torch.profiler over the last `active` served batches. It starts late and stops after the last
    response, so its own stop (the parse of the recorded events, tens of ms) delays no request. Started at
    batch S with step_num = S, it names the span of served batch N ProfilerStep#N (torch 1.13 names a step's
    span after the step number before its step() call, hence the one WARMUP step at S)."""

    def __init__(self, active):
        self.active = int(active)
        self.prof = None

    def before_batch(self, batch_index, remaining, mean_batch):
        if self.prof is None and self.active > 0 and remaining <= self.active * max(1.0, mean_batch):
            first = batch_index
            self.prof = torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU],
                schedule=lambda step: (torch.profiler.ProfilerAction.WARMUP if step <= first
                                       else torch.profiler.ProfilerAction.RECORD))
            self.prof.step_num = batch_index
            self.prof.__enter__()
        if self.prof is not None:
            self.prof.step()

    def finish(self, path):
        if self.prof is not None:
            self.prof.__exit__(None, None, None)
            self.prof.export_chrome_trace(path)


class HeadProfiler:
    """torch.profiler over the first `active` served batches, as a server profiled from its first request
    with torch.profiler.schedule(wait=0, warmup=0, active=N) is: the profiled calls pay the profiler's
    overhead, and the batch after the window waits while the profiler processes what it recorded and the
    trace is written (on_trace_ready). Span naming as in TailProfiler, started at batch 0."""

    def __init__(self, active, path):
        self.active = int(active)
        self.path = path
        self.prof = None
        self.done = False

    def before_batch(self, batch_index, remaining, mean_batch):
        if self.done or self.active <= 0:
            return
        if self.prof is None:
            last = self.active
            self.prof = torch.profiler.profile(
                activities=[torch.profiler.ProfilerActivity.CPU],
                schedule=lambda step: (torch.profiler.ProfilerAction.WARMUP if step <= 0
                                       else torch.profiler.ProfilerAction.RECORD if step < last
                                       else torch.profiler.ProfilerAction.RECORD_AND_SAVE if step == last
                                       else torch.profiler.ProfilerAction.NONE),
                on_trace_ready=lambda p: p.export_chrome_trace(self.path))
            self.prof.step_num = batch_index
            self.prof.__enter__()
        self.prof.step()
        if self.prof.step_num > self.active:
            self.prof.__exit__(None, None, None)
            self.done = True

    def finish(self, path):
        if self.prof is not None and not self.done:
            self.prof.__exit__(None, None, None)
            self.done = True


PROFILER_WINDOWS = ("tail", "head")


def serve(server, images, arrivals, max_batch, profiler, log):
    """The serving loop: admit the arrivals whose time has come, serve the oldest up to max_batch of them."""
    n = len(arrivals)
    served = admitted = 0
    queue_at_batch = []
    wall0, t0 = time.time(), time.perf_counter()
    while served < n:
        now = time.perf_counter() - t0
        while admitted < n and arrivals[admitted] <= now:
            admitted += 1
        if admitted == served:
            time.sleep(max(0.0, arrivals[admitted] - now))
            continue
        batch_index = len(queue_at_batch)
        profiler.before_batch(batch_index, n - served, served / max(1, batch_index))
        take = min(max_batch, admitted - served)
        queue_at_batch.append(admitted - served)
        server([images[i % len(images)] for i in range(served, served + take)])
        done = time.perf_counter() - t0
        for i in range(served, served + take):
            log.write({"request_id": i, "time": round(wall0 + done, 6),
                       "latency_ms": round((done - arrivals[i]) * 1000.0, 3), "batch_size": take})
        served += take
    return queue_at_batch


# ------------------------------------------------------------------------------------------- the run

def resolve(config):
    """Checks and derived keys, after the fault and --set."""
    model, inp = config["model"], config["input"]
    if model["arch"] not in ARCHS:
        raise SystemExit(f"error: model.arch {model['arch']!r}: expected one of {', '.join(ARCHS)}")
    if config["model_format"] not in FORMATS:
        raise SystemExit(f"error: model_format {config['model_format']!r}: expected one of {', '.join(FORMATS)}")
    if config["model_artifact"] not in ("in_memory", "checkpoint_file"):
        raise SystemExit("error: model_artifact: expected in_memory or checkpoint_file")
    if config["client"]["kind"] != "open_loop_bursty":
        config["client"].pop("burst_size", None)
    raw, shape = inp["raw_image_shape"], inp["model_input_shape"]
    if len(raw) != 3 or raw[2] != 3 or len(shape) != 3 or shape[0] != 3:
        raise SystemExit("error: input.raw_image_shape must be [H, W, 3] and input.model_input_shape [3, H, W]")
    config["max_batch_size"] = max(1, int(config["max_batch_size"]))
    config["batching"] = ("disabled" if config["max_batch_size"] == 1
                          else "dynamic (take all queued requests up to max_batch_size)")
    config["fusion"] = fusion_text(config)
    config["cpu_count"] = os.cpu_count()
    config["framework"] = f"pytorch {torch.__version__} (cpu)"


def run(config, folder):
    os.makedirs(folder, exist_ok=True)
    seed = int(config["seed"])
    rng = np.random.default_rng(seed)
    torch.set_num_threads(int(config["num_threads"]))
    torch.set_num_interop_threads(int(config["num_interop_threads"]))
    raw = config["input"]["raw_image_shape"]
    images = [rng.integers(0, 256, size=tuple(raw), dtype=np.uint8) for _ in range(32)]
    max_batch = config["max_batch_size"]
    arch, width = config["model"]["arch"], float(config["model"]["width_multiplier"])
    stages = build_stages(arch, width, config["input"]["model_input_shape"], seed)
    config["model"]["num_parameters"] = sum(p.numel() for s in stages for p in s.parameters())
    competitors = []
    info = {}
    sampler = HostSampler(os.path.join(folder, "host_metrics.jsonl"), {os.getpid(): {"role": "server"}})
    sampler.start()
    try:
        with tempfile.TemporaryDirectory(prefix="serve-artifact-") as artifact_dir:
            competitors = sidecars.start(int(config.get("competing_busy_processes") or 0))
            # Capacity probe: a separate, warmed instance of the same pipeline, timed on single requests.
            probe = Server(dict(config, lazy_model_init=False, model_artifact="in_memory"), stages)
            warm_up(probe, images, max(5, 2 * max_batch), max_batch)
            single_ms = single_request_ms(probe, images)
            del probe
            client = config["client"]
            if client.get("target_rate_rps") is None:
                client["target_rate_rps"] = round(float(client["rate_factor"]) * 1000.0 / single_ms, 1)
            else:
                client["rate_factor"] = round(float(client["target_rate_rps"]) * single_ms / 1000.0, 3)
            rate = float(client["target_rate_rps"])
            if client.get("num_requests") is None:
                client["num_requests"] = int(min(MAX_REQUESTS, max(MIN_REQUESTS,
                                                                   round(rate * float(client["duration_s"])))))
            n = int(client["num_requests"])
            arrivals = arrival_schedule(client, rate, n, rng)
            info["probe_single_request_ms"] = single_ms

            server = Server(config, stages, artifact_dir)
            warm_up(server, images, int(config["warmup_requests"]), max_batch)
            profiler = (HeadProfiler(config["profiler"]["active"], os.path.join(folder, "trace.json"))
                        if config["profiler"]["window"] == "head" else TailProfiler(config["profiler"]["active"]))
            with casefolder.JsonLines(os.path.join(folder, "metrics.jsonl")) as log:
                info["queue_at_batch"] = serve(server, images, arrivals, max_batch, profiler, log)
            profiler.finish(os.path.join(folder, "trace.json"))
            info.update(references(config, server, stages, images, competitors))
    finally:
        sidecars.stop(competitors)
        sampler.stop()
    return info


def references(config, server, stages, images, competitors):
    """Figures for expected.json, measured after serving on this machine (they say how big the symptom is)."""
    out = {}
    mb = max(4, config["max_batch_size"])
    out["served_bs1_ms"] = timed(server, images[:1], 10)
    out[f"served_bs{mb}_per_item_ms"] = timed(server, images[:mb], 5) / mb
    out["ref_batch"] = mb
    if config["model_format"] != "torchscript_frozen_opt" or eager_tail(config):
        ref = Server(dict(config, model_format="torchscript_frozen_opt", lazy_model_init=False,
                          model_artifact="in_memory", model=dict(config["model"], eager_tail_fraction=0)),
                     stages)
        warm_up(ref, images, 5, 1)
        out["ref_frozen_opt_bs1_ms"] = timed(ref, images[:1], 10)
    if config["preprocessing"]["implementation"] != "torch_batched":
        pre = Preprocessor("torch_batched", config["input"]["raw_image_shape"],
                           config["input"]["model_input_shape"])
        out["ref_torch_preprocess_ms"] = timed(pre, images[:1], 10)
    if config["num_threads"] > 1 or competitors:
        sidecars.stop(competitors)
        competitors.clear()
        threads = torch.get_num_threads()
        torch.set_num_threads(1)
        out["ref_single_thread_bs1_ms"] = timed(server, images[:1], 10)
        torch.set_num_threads(threads)
    return out


# --------------------------------------------------------------------------------- what was measured

def quantile(values, q):
    return float(np.quantile(np.asarray(values, dtype=float), q)) if len(values) else float("nan")


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def trace_figures(path):
    """Per ProfilerStep span: the outermost preprocess / forward / postprocess range and the aten:: operators
    inside the outermost forward (what a reader of trace.json sees)."""
    with open(path) as f:
        events = [e for e in json.load(f) if e.get("ph") == "X"]
    steps = sorted((e for e in events if e["name"].startswith("ProfilerStep#")), key=lambda e: e["ts"])
    rows = []
    for s in steps:
        lo, hi = s["ts"], s["ts"] + s["dur"]
        inside = [e for e in events
                  if e["tid"] == s["tid"] and e is not s and lo <= e["ts"] and e["ts"] + e["dur"] <= hi]
        ranges = {}
        for name in ("preprocess", "forward", "postprocess"):
            cands = [e for e in inside if e["name"] == name]
            ranges[name] = max(cands, key=lambda e: e["dur"]) if cands else None
        fwd = ranges["forward"]
        ops = [e for e in inside if fwd and e["name"].startswith("aten::")
               and fwd["ts"] <= e["ts"] and e["ts"] + e["dur"] <= fwd["ts"] + fwd["dur"]]
        rows.append({"step": int(s["name"].split("#")[1]), "events": len(inside),
                     **{f"{k}_ms": (v["dur"] / 1000.0 if v else 0.0) for k, v in ranges.items()},
                     "ops": len(ops), "batch_norm": sum(e["name"] == "aten::batch_norm" for e in ops)})
    return rows


def measure(folder, config, info):
    reqs = sorted(read_jsonl(os.path.join(folder, "metrics.jsonl")), key=lambda r: r["request_id"])
    lat = [r["latency_ms"] for r in reqs]
    n = len(lat)
    quarter = max(1, n // 4)
    head = max(3, n // 20)
    p50 = quantile(lat, 0.5)
    steady = quantile(lat[n // 2:], 0.5)
    arrivals = [r["time"] - r["latency_ms"] / 1000.0 for r in reqs]
    done = sorted(r["time"] for r in reqs)
    m = {"requests": n,
         "latency_p50_ms": p50, "latency_p90_ms": quantile(lat, 0.9), "latency_p99_ms": quantile(lat, 0.99),
         "latency_max_ms": max(lat), "latency_first_ms": lat[0],
         "first_over_p50": lat[0] / p50, "p99_over_p50": quantile(lat, 0.99) / p50,
         "start_over_steady": max(lat[:head]) / steady,
         "latency_q1_median_ms": quantile(lat[:quarter], 0.5), "latency_q4_median_ms": quantile(lat[-quarter:], 0.5),
         "batch_size_mean": float(np.mean([r["batch_size"] for r in reqs])),
         "batch_size_max": max(r["batch_size"] for r in reqs),
         "offered_rps": (n - 1) / max(1e-9, max(arrivals) - min(arrivals)),
         "achieved_rps": (n - 1) / max(1e-9, done[-1] - done[0]),
         "target_rps": config["client"]["target_rate_rps"],
         "rate_factor": config["client"]["rate_factor"]}
    m["latency_growth_q4_over_q1"] = m["latency_q4_median_ms"] / m["latency_q1_median_ms"]
    queue = info["queue_at_batch"]
    m["queue_at_batch_mean"] = float(np.mean(queue))
    m["queue_at_batch_max"] = max(queue)
    m["batches_leaving_requests_waiting"] = float(np.mean([q > config["max_batch_size"] for q in queue]))
    rows = trace_figures(os.path.join(folder, "trace.json"))
    if rows:
        pre, fwd, post = (sum(r[k] for r in rows) for k in ("preprocess_ms", "forward_ms", "postprocess_ms"))
        m.update({"trace_profiled_batches": len(rows),
                  "trace_preprocess_share": pre / max(1e-9, pre + fwd + post),
                  "trace_preprocess_ms_median": quantile([r["preprocess_ms"] for r in rows], 0.5),
                  "trace_forward_ms_median": quantile([r["forward_ms"] for r in rows], 0.5),
                  "trace_events_per_step": float(np.mean([r["events"] for r in rows])),
                  "trace_ops_per_forward": quantile([r["ops"] for r in rows], 0.5),
                  "trace_batch_norm_ops_per_step": quantile([r["batch_norm"] for r in rows], 0.5)})
    host = read_jsonl(os.path.join(folder, "host_metrics.jsonl"))

    def series(name, **labels):
        return [h["value"] for h in host if h["metric"] == name
                and all(h["labels"].get(k) == v for k, v in labels.items())]
    if host:
        m.update({"host_samples": len({h["time"] for h in host}),
                  "host_cpu_util_mean": float(np.mean(series("cpu.utilization", cpu="all") or [0])),
                  "host_runnable_mean": float(np.mean(series("load.runnable") or [0])),
                  "proc_threads_max": max(series("proc.threads", role="server") or [0]),
                  "proc_cpu_util_mean": float(np.mean(series("proc.cpu_utilization", role="server") or [0]))})
    single = info["probe_single_request_ms"]
    m["probe_single_request_ms"] = single
    m["single_request_capacity_rps"] = 1000.0 / single
    m["p50_over_probe"] = p50 / single
    for k, v in info.items():
        if k not in ("queue_at_batch", "probe_single_request_ms"):
            m[k] = v
    return {k: (round(v, 3) if isinstance(v, float) else v) for k, v in m.items()}


def notes_for(root, m, config):
    f = m.get
    text = (f"Measured: latency p50 {f('latency_p50_ms')} ms, p99 {f('latency_p99_ms')} ms, first request "
            f"{f('latency_first_ms')} ms; batch size mean {f('batch_size_mean')}; ")
    if root == "cold_start":
        text += (f"first request is {f('first_over_p50')}x the median, the slowest of the first requests "
                 f"{f('start_over_steady')}x the steady-state median; first-quarter median "
                 f"{f('latency_q1_median_ms')} ms vs last-quarter {f('latency_q4_median_ms')} ms.")
    elif root == "no_batching":
        mb = f("ref_batch")
        text += (f"model calls took at most {f('batch_size_max')} request(s) while {f('queue_at_batch_mean')} were "
                 f"queued on average (max {f('queue_at_batch_max')}): median latency "
                 f"{f('latency_q1_median_ms')} ms in the first quarter -> {f('latency_q4_median_ms')} ms in the "
                 f"last; achieved {f('achieved_rps')} rps vs offered {f('offered_rps')} rps "
                 f"({f('rate_factor')}x the single-request capacity); per-item cost bs1 {f('served_bs1_ms')} ms "
                 f"vs bs{mb} {f(f'served_bs{mb}_per_item_ms')} ms.")
    elif root == "preprocessing_bottleneck":
        text += (f"preprocess is {round(100 * (f('trace_preprocess_share') or 0))}% of profiled request time "
                 f"(preprocess {f('trace_preprocess_ms_median')} ms vs forward {f('trace_forward_ms_median')} ms "
                 f"per step); the batched torch preprocessing takes {f('ref_torch_preprocess_ms')} ms.")
    elif root == "unfused_operators":
        ratio = round(f("served_bs1_ms") / f("ref_frozen_opt_bs1_ms"), 2) if f("ref_frozen_opt_bs1_ms") else None
        text += (f"trace shows {f('trace_batch_norm_ops_per_step')} aten::batch_norm per step and "
                 f"{f('trace_ops_per_forward')} aten ops per forward; same model bs1: served {f('served_bs1_ms')} ms "
                 f"vs frozen+optimized {f('ref_frozen_opt_bs1_ms')} ms ({ratio}x).")
    elif root == "thread_oversubscription":
        ref = f("ref_single_thread_bs1_ms")
        text += (f"p99/p50 {f('p99_over_p50')}; served bs1 {f('served_bs1_ms')} ms vs {ref} ms with one thread "
                 f"and no sidecar; proc threads max {f('proc_threads_max')} on {config['cpu_count']} cores, runnable "
                 f"mean {f('host_runnable_mean')}, host cpu util mean {f('host_cpu_util_mean')}, process cpu "
                 f"util mean {f('proc_cpu_util_mean')}.")
    else:
        text += (f"no queue growth (q4/q1 median {f('latency_growth_q4_over_q1')}), start/steady "
                 f"{f('start_over_steady')}, preprocess share {f('trace_preprocess_share')}, load "
                 f"{f('rate_factor')}x single-request capacity, host cpu util mean {f('host_cpu_util_mean')} "
                 f"(includes other tenants).")
    return text


def variant_of(config, magnitude):
    """The value of every axis of this run (expected.json `variant`, named as the axes of
    workloads/matrices/inference.json; `eval --leave-out AXIS` groups by it), plus the fault's own settings."""
    shape = config["input"]["model_input_shape"]
    return {"arch": config["model"]["arch"], "width": config["model"]["width_multiplier"],
            "resolution": f"{shape[1]}x{shape[2]}", "threads": config["num_threads"],
            "batching": config["max_batch_size"], "rate_factor": config["client"]["rate_factor"],
            "client": config["client"]["kind"], "warmup_requests": config["warmup_requests"],
            "model_format": config["model_format"], "eager_tail_stages": eager_tail(config),
            "preprocessing": config["preprocessing"]["implementation"],
            "competing_processes": config["competing_busy_processes"],
            "lazy_model_init": bool(config["lazy_model_init"]), "model_artifact": config["model_artifact"],
            "num_requests": config["client"]["num_requests"], "magnitude": magnitude}


def configure(fault, magnitude, seed, sets):
    """The run's final configuration: defaults, then the fault, then the --set overrides (they win)."""
    config = default_config(seed)
    fault_params = injector.inject("inference", fault, magnitude, config, seed)
    options.apply_sets(config, options.parse_sets(sets))
    resolve(config)
    window = config["profiler"].setdefault("window", "tail")
    if window not in PROFILER_WINDOWS:
        raise SystemExit(f"error: profiler.window {window!r}: expected one of {', '.join(PROFILER_WINDOWS)}")
    if fault == "unfused_operators" and not has_batch_norm(config["model"]["arch"]):
        raise SystemExit(f"error: --fault unfused_operators: model.arch {config['model']['arch']} has no "
                         f"conv/batch-norm layers to fuse (choose a conv architecture)")
    return config, fault_params


def main(argv=None):
    faults = injector.faults_of("inference")
    ap = options.parser(__doc__.splitlines()[0], faults)
    args = ap.parse_args(argv)
    config, fault_params = configure(args.fault, args.magnitude, args.seed, args.set)
    info = run(config, args.output)
    steps = sorted(r["step"] for r in trace_figures(os.path.join(args.output, "trace.json")))
    window = config["profiler"]["window"]
    config["profiler"] = {"schedule": {"wait": steps[0] if steps else 0, "warmup": 0, "active": len(steps)},
                          "profiled_steps": steps, "step_unit": "one served batch (one model call)",
                          "window": window, "window_means": (
                              "the last served batches (the profiler stops after the last response)"
                              if window == "tail" else
                              "the first served batches (the batch after them waits while the profiler "
                              "processes its events)")}
    root = "healthy" if args.fault == "none" else args.fault
    m = measure(args.output, config, info)
    casefolder.write_json(os.path.join(args.output, "config.json"), config)
    casefolder.write_expected(args.output, "inference", root, fault_params,
                              variant_of(config, args.magnitude if args.fault != "none" else "none"),
                              notes_for(root, m, config), m)


if __name__ == "__main__":
    main()
