"""The inference fault injector changes the serving program itself (workloads/serve.py).

  /usr/bin/python3 -m unittest discover -s tests/workloads -p 'test_inference*.py'

Small, fast runs: the in-process tests build tiny models (32x32 inputs) and serve a handful of requests; one
end-to-end test runs serve.py for 40 requests and reads the case folder it writes.
"""
import json
import os
import subprocess
import sys
import tempfile
import time
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = os.path.join(ROOT, "workloads")
sys.path.insert(0, WORKLOADS)

import numpy as np  # noqa: E402
import torch  # noqa: E402

import serve  # noqa: E402
from faultlib import injector  # noqa: E402

TINY = ["input.raw_image_shape=[40,40,3]", "input.model_input_shape=[3,32,32]", "model.width_multiplier=0.5"]
CORES = os.cpu_count()
FAULTS = {"unfused_operators", "thread_oversubscription", "preprocessing_bottleneck", "no_batching", "cold_start"}


ARTIFACTS = tempfile.TemporaryDirectory(prefix="serve-test-")  # checkpoint files of the cold-start servers


def tearDownModule():
    ARTIFACTS.cleanup()


def load_json(path):
    with open(path) as f:
        return json.load(f)


def images(config, count=8):
    rng = np.random.default_rng(0)
    return [rng.integers(0, 256, size=tuple(config["input"]["raw_image_shape"]), dtype=np.uint8)
            for _ in range(count)]


def server_for(fault, magnitude="medium", sets=()):
    config, _ = serve.configure(fault, magnitude, 1, list(TINY) + list(sets))
    stages = serve.build_stages(config["model"]["arch"], config["model"]["width_multiplier"],
                                config["input"]["model_input_shape"], 1)
    return config, serve.Server(config, stages, ARTIFACTS.name)


class ListLog:
    def __init__(self):
        self.records = []

    def write(self, record):
        self.records.append(record)


def serve_all_at_once(config, server, count):
    """`count` requests that all arrive at t = 0: the queue holds all of them when serving starts."""
    log = ListLog()
    queue = serve.serve(server, images(config), np.zeros(count), config["max_batch_size"],
                        serve.TailProfiler(0), log)
    return queue, [r["batch_size"] for r in log.records]


def operators(server, config):
    with torch.autograd.profiler.profile() as prof:
        server(images(config, 1))
    return [e.name for e in prof.function_events]


class Configuration(unittest.TestCase):
    def test_the_five_faults_are_registered(self):
        self.assertEqual(set(injector.faults_of("inference")), FAULTS)

    def test_magnitudes_differ(self):
        for fault in FAULTS:
            params = [serve.configure(fault, m, 1, [])[1] for m in ("weak", "medium", "strong")]
            self.assertEqual(len({json.dumps(p, sort_keys=True) for p in params}), 3, fault)

    def test_healthy_defaults(self):
        config, params = serve.configure("none", "medium", 1, [])
        self.assertEqual(params, {})
        self.assertLessEqual(config["num_threads"], CORES)
        self.assertGreater(config["warmup_requests"], 0)
        self.assertGreater(config["max_batch_size"], 1)
        self.assertLess(config["client"]["rate_factor"], 1.0)
        self.assertEqual(config["model_format"], "torchscript_frozen_opt")
        self.assertEqual(config["preprocessing"]["implementation"], "torch_batched")

    def test_set_wins_over_the_fault(self):
        config, params = serve.configure("no_batching", "strong", 1, ["max_batch_size=8"])
        self.assertEqual(config["max_batch_size"], 8)
        self.assertTrue(config["batching"].startswith("dynamic"))
        self.assertEqual(config["client"]["rate_factor"], params["offered_load_vs_single_capacity"])
        config, _ = serve.configure("thread_oversubscription", "medium", 1, ["num_threads=1"])
        self.assertEqual(config["num_threads"], 1)
        config, _ = serve.configure("cold_start", "medium", 1, ["warmup_requests=20"])
        self.assertEqual(config["warmup_requests"], 20)

    def test_thread_oversubscription_sets_more_threads_than_cores(self):
        for magnitude in ("weak", "medium", "strong"):
            config, _ = serve.configure("thread_oversubscription", magnitude, 1, [])
            self.assertGreaterEqual(config["num_threads"], 2 * CORES, magnitude)
        self.assertGreater(serve.configure("thread_oversubscription", "strong", 1, [])[0]
                           ["competing_busy_processes"], 0)

    def test_cold_start_has_no_warmup(self):
        for magnitude in ("weak", "medium", "strong"):
            config, _ = serve.configure("cold_start", magnitude, 1, [])
            self.assertEqual(config["warmup_requests"], 0)
            self.assertNotEqual(config["model_format"], "eager")
        self.assertTrue(serve.configure("cold_start", "medium", 1, [])[0]["lazy_model_init"])

    def test_unfused_refused_for_a_model_without_batch_norm(self):
        with self.assertRaises(SystemExit):
            serve.configure("unfused_operators", "medium", 1, ["model.arch=mlp"])


class Program(unittest.TestCase):
    def test_no_batching_serves_one_request_per_call_while_several_wait(self):
        config, server = server_for("no_batching")
        queue, sizes = serve_all_at_once(config, server, 10)
        self.assertEqual(set(sizes), {1})
        self.assertEqual(max(queue), 10)
        # The fix on the faulted program: the same queue is served in batches.
        config, server = server_for("no_batching", sets=["max_batch_size=8"])
        queue, sizes = serve_all_at_once(config, server, 10)
        self.assertEqual(max(sizes), 8)

    def test_unfused_model_runs_batch_norm_and_the_healthy_one_does_not(self):
        config, server = server_for("none")
        self.assertNotIn("aten::batch_norm", operators(server, config))
        for magnitude in ("weak", "strong"):
            config, server = server_for("unfused_operators", magnitude)
            self.assertIn("aten::batch_norm", operators(server, config), magnitude)

    def test_cold_start_prepares_the_model_inside_the_first_request(self):
        config, server = server_for("cold_start", "strong")
        self.assertIsNone(server.model)
        imgs = images(config, 1)
        times = []
        for _ in range(6):
            t = time.perf_counter()
            server(imgs)
            times.append(time.perf_counter() - t)
        self.assertIsNotNone(server.model)
        self.assertGreater(times[0], 3 * float(np.median(times[2:])))
        healthy_config, healthy = server_for("none")
        self.assertIsNotNone(healthy.model)

    def test_preprocessing_fault_is_a_slow_python_path_with_the_same_output(self):
        config, _ = serve.configure("preprocessing_bottleneck", "strong", 1, TINY)
        raw, shape = config["input"]["raw_image_shape"], config["input"]["model_input_shape"]
        slow = serve.Preprocessor(config["preprocessing"]["implementation"], raw, shape)
        fast = serve.Preprocessor("torch_batched", raw, shape)
        imgs = images(config, 2)
        self.assertLess(float((slow(imgs) - fast(imgs)).abs().max()), 1e-4)
        self.assertGreater(serve.timed(slow, imgs[:1], 3), 5 * serve.timed(fast, imgs[:1], 3))

    def test_strong_oversubscription_starts_busy_sidecars(self):
        procs = serve.sidecars.start(1)
        try:
            def ticks():
                with open(f"/proc/{procs[0].pid}/stat") as f:
                    parts = f.read().rsplit(")", 1)[1].split()
                return int(parts[11]) + int(parts[12])
            # Busy: half a CPU-second within 10 s of wall time, start-up included. A sidecar that
            # sleeps never gets there; one that spins gets there in well under a second on an idle machine
            # and still does on a shared one that gives it a fraction of a core.
            hz = os.sysconf("SC_CLK_TCK")
            deadline = time.monotonic() + 10.0
            while ticks() < 0.5 * hz and time.monotonic() < deadline:
                time.sleep(0.05)
            self.assertGreaterEqual(ticks(), 0.5 * hz)
        finally:
            serve.sidecars.stop(procs)


class EndToEnd(unittest.TestCase):
    def test_case_folder_of_an_oversubscribed_run(self):
        with tempfile.TemporaryDirectory() as out:
            subprocess.run([sys.executable, os.path.join(WORKLOADS, "serve.py"), "--fault",
                            "thread_oversubscription", "--magnitude", "weak", "--seed", "5", "--output", out,
                            "--set", "client.num_requests=40", *sum((["--set", s] for s in TINY), [])],
                           check=True, timeout=120)
            config = load_json(os.path.join(out, "config.json"))
            expected = load_json(os.path.join(out, "expected.json"))
            self.assertEqual(config["num_threads"], 2 * CORES)
            self.assertEqual(config["client"]["num_requests"], 40)
            self.assertEqual(expected["root_cause"], "thread_oversubscription")
            for axis in ("arch", "width", "model_format", "threads", "batching", "rate_factor", "resolution"):
                self.assertIn(axis, expected["variant"])
            with open(os.path.join(out, "metrics.jsonl")) as f:
                rows = [json.loads(line) for line in f]
            self.assertEqual(sorted(r["request_id"] for r in rows), list(range(40)))
            self.assertEqual(set(rows[0]), {"request_id", "time", "latency_ms", "batch_size"})
            with open(os.path.join(out, "host_metrics.jsonl")) as f:
                host = [json.loads(line) for line in f]
            threads = [h["value"] for h in host if h["metric"] == "proc.threads"]
            self.assertGreater(max(threads), CORES)  # the intra-op pool really exists
            trace = load_json(os.path.join(out, "trace.json"))
            self.assertIsInstance(trace, list)
            names = {e["name"] for e in trace}
            self.assertTrue({"preprocess", "forward", "postprocess"} <= names)
            steps = sorted(int(e["name"].split("#")[1]) for e in trace if e["name"].startswith("ProfilerStep#"))
            self.assertEqual(steps, config["profiler"]["profiled_steps"])


if __name__ == "__main__":
    unittest.main()
