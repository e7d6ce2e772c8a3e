#!/usr/bin/python3
"""Writes the sample runs bundled in samples/ (the quick start diagnoses them).

Each sample is a real, short PyTorch training run on CPU, made here: a small MLP learns to classify
synthetic 10-class Gaussian clusters (64 features), logging what the case-folder layout holds
(docs/diagnose.md): config.json, metrics.jsonl (one object per optimizer step) and host_metrics.jsonl
(/proc sampled every 100 ms by a background thread).

  samples/training-healthy        SGD, lr 0.05: the loss falls steadily
  samples/training-lr-too-high    SGD, lr 1.2: oversized early updates blow the gradients up and the loss
                                  stalls at chance level (dead ReLUs) instead of decreasing

Needs python3-torch (Debian package); only developers regenerating the samples need it:
  /usr/bin/python3 scripts/make-samples.py [--out samples]
"""
import argparse
import json
import math
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "workloads"))
from faultlib.hostmetrics import HostSampler  # noqa: E402  (/proc every 100 ms, as the workloads)


def clusters(n, dim, classes, gen):
    centres = torch.randn(classes, dim, generator=gen) * 1.5
    y = torch.arange(n) % classes
    x = centres[y] + torch.randn(n, dim, generator=gen)
    return x, y


def finite(v):
    return v if math.isfinite(v) else ("nan" if math.isnan(v) else ("inf" if v > 0 else "-inf"))


def train(folder, lr, seed, steps=300, batch=32):
    os.makedirs(folder, exist_ok=True)
    torch.manual_seed(seed)
    torch.set_num_threads(1)
    gen = torch.Generator().manual_seed(seed)
    x, y = clusters(1024, 64, 10, gen)
    model = torch.nn.Sequential(torch.nn.Linear(64, 64), torch.nn.ReLU(), torch.nn.Linear(64, 32), torch.nn.ReLU(),
                                torch.nn.Linear(32, 10))
    opt = torch.optim.SGD(model.parameters(), lr=lr)
    loss_fn = torch.nn.CrossEntropyLoss()
    steps_per_epoch = len(x) // batch
    config = {
        "scenario": "training", "task": "synthetic 10-class Gaussian clusters, MLP", "framework":
        f"pytorch {torch.__version__} (cpu)", "cpu_count": os.cpu_count(), "world_size": 1, "seed": seed,
        "dataset": {"name": "gaussian_clusters", "num_samples": len(x), "input_shape": [64], "num_classes": 10},
        "model": {"type": "mlp", "hidden": [64, 32], "act": "relu", "init": "pytorch_default",
                  "num_parameters": sum(p.numel() for p in model.parameters())},
        "batch_size": batch, "steps": steps, "steps_per_epoch": steps_per_epoch,
        "optimizer": {"name": "sgd", "lr": lr, "momentum": 0.0}, "lr": lr, "lr_schedule": {"kind": "constant"},
        "clip_threshold": None, "loss": "cross_entropy", "shuffle": True, "drop_last": True, "num_threads": 1,
    }
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(config, f, indent=2)
        f.write("\n")
    sampler = HostSampler(os.path.join(folder, "host_metrics.jsonl"))
    sampler.start()
    with open(os.path.join(folder, "metrics.jsonl"), "w") as out:
        order = torch.randperm(len(x), generator=gen)
        for step in range(steps):
            epoch, i = divmod(step, steps_per_epoch)
            if i == 0 and step > 0:
                order = torch.randperm(len(x), generator=gen)
            idx = order[i * batch:(i + 1) * batch]
            opt.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            layer = {n: p.grad.norm().item() for n, p in model.named_parameters()}
            total = math.sqrt(sum(v * v for v in layer.values()))
            opt.step()
            time.sleep(0.005)  # a little work per step so host metrics see several samples
            out.write(json.dumps({"step": step, "time": round(time.time(), 6), "epoch": epoch,
                                  "loss": finite(loss.item()), "grad_norm": finite(total), "lr": lr,
                                  "clip_threshold": None,
                                  "layer_grad_norms": {k: finite(v) for k, v in layer.items()}}) + "\n")
    sampler.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "..", "samples"))
    ap.add_argument("--high-lr", type=float, default=1.2)
    a = ap.parse_args()
    train(os.path.join(a.out, "training-healthy"), lr=0.05, seed=7)
    train(os.path.join(a.out, "training-lr-too-high"), lr=a.high_lr, seed=7)


if __name__ == "__main__":
    main()
