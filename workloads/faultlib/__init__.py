"""Shared pieces of the cann-debug workloads (train.py, serve.py, ddp.py).

options      command line common to the three (--fault, --magnitude, --seed, --set, --output)
injector     the fault registry: each fault changes the run's configuration or code path the way the fault
             happens in real code; --set KEY=VALUE is applied after it, so a fix can be tried on a faulted run
casefolder   the case-folder layout of the corpus (config.json, metrics.jsonl, expected.json, non-finite
             numbers as strings)
hostmetrics  /proc sampled every 100 ms into host_metrics.jsonl
"""
