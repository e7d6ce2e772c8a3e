"""The distributed faults really change the program ddp.py runs (tiny real gloo runs on localhost).

Run from the repository root with the Debian python (it has torch):
    /usr/bin/python3 -m unittest discover -s tests/workloads -p 'test_distributed*.py'

Each run is 2 ranks x 9 steps of the default 2.3 MB MLP at batch 8 (a few seconds); the checks read the
traces and logs the run wrote, the way the product would.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
WORKLOADS = os.path.join(ROOT, "workloads")
DDP = os.path.join(WORKLOADS, "ddp.py")
sys.path.insert(0, WORKLOADS)

import ddp  # noqa: E402
from faultlib import distributed_faults as dfaults  # noqa: E402
from faultlib import injector, options  # noqa: E402

TINY = ["--set", "steps=9", "--set", "batch_size_per_rank=8",
        "--set", 'profiler.schedule={"wait": 3, "warmup": 1, "active": 3}']


def build(*argv):
    args = options.parser("test", injector.faults_of("distributed")).parse_args(list(argv) + ["--output", "-"])
    return ddp.build_config(args)


class ConfigLevel(unittest.TestCase):
    """What the injector and --set do to the configuration (no run)."""

    def test_five_faults_registered(self):
        self.assertEqual(set(injector.faults_of("distributed")),
                         {"straggler_rank", "small_bucket_size", "no_comm_overlap", "load_imbalance",
                          "expert_imbalance"})

    def test_expert_imbalance_makes_a_moe_without_balancing_loss(self):
        config, params = build("--fault", "expert_imbalance", "--magnitude", "medium", "--seed", "2")
        self.assertEqual(config["model"]["type"], "moe")
        self.assertEqual(config["moe_aux_loss_coeff"], 0.0)
        self.assertEqual(params["gate_bias"], 1.0)
        self.assertIn(params["hot_rank"], (0, 1))
        config, _ = build("--seed", "2", "--set", "model.type=moe")  # healthy MoE: balancing loss on
        self.assertIsNone(config["expert_router"])
        self.assertGreater(config["moe_aux_loss_coeff"], 0)
        with self.assertRaises(SystemExit):  # the fault needs an MoE model
            build("--fault", "expert_imbalance", "--set", "model.type=mlp")

    def test_healthy_default_has_no_fault_knobs(self):
        config, params = build("--seed", "1")
        self.assertEqual(params, {})
        self.assertEqual((config["wrapper"], config["grad_sync"], config["bucket_cap_mb"]),
                         ("DistributedDataParallel", "overlap", 25))
        self.assertIsNone(config["straggler"])
        self.assertEqual(dfaults.rank_batch_sizes(config), [32, 32])

    def test_set_wins_over_the_fault(self):
        config, params = build("--fault", "small_bucket_size", "--magnitude", "strong", "--seed", "3")
        self.assertLess(config["bucket_cap_mb"], 0.02)
        config, params = build("--fault", "small_bucket_size", "--seed", "3", "--set", "bucket_cap_mb=25")
        self.assertEqual(config["bucket_cap_mb"], 25)
        self.assertEqual(params["bucket_cap_mb"], 25)  # fault_params describe the program that runs
        config, _ = build("--fault", "no_comm_overlap", "--set", "grad_sync=overlap",
                          "--set", "wrapper=DistributedDataParallel")
        self.assertEqual(config["grad_sync"], "overlap")

    def test_magnitudes_grow(self):
        for fault, key in (("straggler_rank", lambda c: c["straggler"]["extra_step_frac"]),
                           ("load_imbalance", lambda c: c["imbalance"]["factor"]),
                           ("small_bucket_size", lambda c: -c["bucket_cap_mb"])):
            values = [key(build("--fault", fault, "--magnitude", m, "--seed", "5")[0])
                      for m in ("weak", "medium", "strong")]
            self.assertEqual(values, sorted(values), fault)
            self.assertLess(values[0], values[2], fault)

    def test_ranks_resolved_after_world_size(self):
        config, params = build("--fault", "straggler_rank", "--set", "world_size=4", "--set", "straggler.rank=-1")
        self.assertEqual(config["straggler"]["rank"], 3)
        self.assertEqual(params["straggler_rank"], 3)
        seen = {build("--fault", "straggler_rank", "--seed", str(s), "--set", "world_size=4")[0]["straggler"]["rank"]
                for s in range(20)}
        self.assertEqual(seen, {0, 1, 2, 3})  # a seeded rank can be any rank of the final world
        with self.assertRaises(SystemExit):
            build("--fault", "straggler_rank", "--set", "straggler.rank=2")

    def test_imbalance_splits_unevenly_only_in_the_program(self):
        for pattern in dfaults.IMBALANCE_PATTERNS:
            config, params = build("--fault", "load_imbalance", "--magnitude", "strong", "--set", "world_size=3",
                                   "--set", "imbalance.rank=1", "--set", f"imbalance.pattern={pattern}")
            sizes = dfaults.rank_batch_sizes(config)
            self.assertAlmostEqual(max(sizes) / min(sizes), 4.0, delta=0.1, msg=pattern)
            self.assertEqual(params["rank_batch_sizes"], sizes)
            public = ddp.public_config(config, {"name": "d", "num_samples": 1, "input_shape": [64],
                                                "num_classes": 10}, {}, [])
            self.assertEqual(public["batch_size_per_rank"], 32)  # the user configured 32 for every rank
            for key in ddp.PRIVATE_KEYS:
                self.assertNotIn(key, public)
        self.assertEqual(sizes.index(max(sizes)), 1)  # ramp: the chosen rank is the heaviest


def run_case(*argv):
    """Runs ddp.py into a fresh folder; returns (folder, expected, metrics rows, per-rank traces by step)."""
    out = tempfile.mkdtemp(prefix="ddp-test-")
    # ddp.py's own deadline comes first: a hung rank prints its stacks into proc.stderr.
    proc = subprocess.run([sys.executable, DDP, "--seed", "1", "--output", out, "--timeout", "240"]
                          + TINY + list(argv), capture_output=True, text=True, timeout=300)
    if proc.returncode != 0:
        raise AssertionError(f"ddp.py {argv} failed:\n{proc.stdout}\n{proc.stderr}")
    with open(os.path.join(out, "expected.json")) as f:
        expected = json.load(f)
    with open(os.path.join(out, "metrics.jsonl")) as f:
        rows = [json.loads(line) for line in f]
    with open(os.path.join(out, "config.json")) as f:
        config = json.load(f)
    traces = [ddp.trace_steps(os.path.join(out, f"rank{r}.trace.json")) for r in range(config["world_size"])]
    return out, expected, rows, traces, config


_RUNS = {}


def case(name, *argv):
    if name not in _RUNS:
        _RUNS[name] = run_case(*argv)
    return _RUNS[name]


def tearDownModule():
    for out, *_ in _RUNS.values():
        shutil.rmtree(out, True)


def median(steps, key):
    return statistics.median(s[key] for s in steps.values())


def tearDownModule():
    for out, *_ in _RUNS.values():
        shutil.rmtree(out, ignore_errors=True)


class Runs(unittest.TestCase):
    """What the ranks really did, read from their traces and logs."""

    def healthy(self):
        return case("healthy")

    def test_case_folder_layout(self):
        out, expected, rows, traces, config = self.healthy()
        self.assertEqual(sorted(os.listdir(out)), ["config.json", "expected.json", "host_metrics.jsonl",
                                                   "metrics.jsonl", "rank0.trace.json", "rank1.trace.json"])
        self.assertEqual(expected["root_cause"], "healthy")
        self.assertEqual([(r["step"], r["rank"]) for r in rows], [(s, r) for s in range(9) for r in range(2)])
        self.assertEqual(len({r["grad_norm"] for r in rows if r["step"] == 4}), 1)  # synchronised gradients
        self.assertEqual(config["profiler"]["profiled_steps"], sorted(traces[0]))
        with open(os.path.join(out, "host_metrics.jsonl")) as f:
            ranks = {json.loads(l)["labels"].get("rank") for l in f if '"proc.' in l}
        self.assertEqual(ranks, {0, 1, None})  # both ranks and the launcher

    def test_healthy_ddp_overlaps_in_few_buckets(self):
        traces = self.healthy()[3]
        for steps in traces:
            self.assertEqual(median(steps, "allreduce_calls"), 2)  # the 1 MB first bucket + the rest
            self.assertEqual(sum(s["allreduce_in_backward"] for s in steps.values()),
                             sum(s["allreduce_calls"] for s in steps.values()))

    def test_small_bucket_size_makes_many_allreduces(self):
        _, expected, _, traces, config = case("bucket", "--fault", "small_bucket_size", "--magnitude", "strong")
        self.assertLess(config["bucket_cap_mb"], 0.02)
        for steps, healthy in zip(traces, self.healthy()[3]):
            self.assertGreaterEqual(median(steps, "allreduce_calls"), 4 * median(healthy, "allreduce_calls"))
            self.assertEqual(sum(s["allreduce_in_backward"] for s in steps.values()),
                             sum(s["allreduce_calls"] for s in steps.values()))  # still overlapped
        params = expected["fault_params"]
        self.assertGreater(params["ddp_buckets"], params["ddp_buckets_at_default_cap"])
        self.assertEqual(median(traces[0], "allreduce_calls"), params["ddp_buckets"])

    def test_small_bucket_size_without_effect_is_refused(self):
        # 1.07 MB of parameters: DDP's 1 MB first bucket plus the rest make 2 buckets at the weak fault's
        # 0.25-0.5 MB as at 25 MB: no fault to label.
        out = tempfile.mkdtemp(prefix="cann-debug-ddp-")
        self.addCleanup(shutil.rmtree, out, True)
        with self.assertRaises(SystemExit) as refused:
            ddp.main(["--fault", "small_bucket_size", "--magnitude", "weak",
                      "--set", "model.hidden=" + json.dumps([160] * 11), "--output", out])
        self.assertIn("as many as the default", str(refused.exception))

    def test_no_comm_overlap_allreduces_only_after_backward(self):
        # DDP kept but its reducer switched off by no_sync(): the reducer must not allreduce in backward.
        _, expected, rows, traces, config = case(
            "overlap", "--fault", "no_comm_overlap", "--magnitude", "medium",
            "--set", "wrapper=DistributedDataParallel")
        self.assertEqual(expected["fault_params"]["gradient_sync"], "after_backward_per_layer")
        layers = len({name.rsplit(".", 1)[0] for name in rows[0]["layer_grad_norms"]})
        for steps in traces:
            self.assertEqual(sum(s["allreduce_in_backward"] for s in steps.values()), 0)
            self.assertEqual(median(steps, "allreduce_calls"), layers)
            self.assertGreater(median(steps, "exposed_collective_ms"), 0)
        for step in range(9):  # the manual sync still averages the gradients
            self.assertEqual(len({r["grad_norm"] for r in rows if r["step"] == step}), 1)

    def test_straggler_only_that_rank_loads_slowly(self):
        # --set picks the rank (wins over the seed's choice); the others must not be slowed in data loading.
        _, expected, rows, traces, config = case(
            "straggler", "--fault", "straggler_rank", "--magnitude", "strong",
            "--set", "straggler.rank=1", "--set", "straggler.kind=blocking_read")
        self.assertEqual(expected["fault_params"]["straggler_rank"], 1)
        slow, other = median(traces[1], "data_loading_ms"), median(traces[0], "data_loading_ms")
        step = median(traces[0], "step_ms")
        self.assertGreater(slow, 0.5 * step)  # 3 x its own calibrated step time, out of a longer step
        self.assertLess(other, 0.1 * slow)
        # rank 0 waits for rank 1 in the allreduce
        self.assertGreater(median(traces[0], "collective_ms"), 3 * median(traces[1], "collective_ms"))

    def test_expert_imbalance_sends_most_tokens_to_the_hot_ranks_experts(self):
        _, expected, rows, _, config = case("moe", "--fault", "expert_imbalance", "--magnitude", "strong",
                                            "--set", "expert_router.rank=1")
        self.assertEqual(config["model"]["type"], "moe")
        self.assertEqual(config["moe_aux_loss_coeff"], 0.0)
        tokens = expected["measured"]["moe_tokens_per_rank"]
        self.assertGreater(tokens[1], 5 * tokens[0])
        _, expected, rows, _, _ = case("moe-healthy", "--set", "model.type=moe")
        tokens = expected["measured"]["moe_tokens_per_rank"]
        self.assertLess(max(tokens) / min(tokens), 1.2)  # noisy top-1 gating starts balanced
        # The router is data parallel (its gradient averaged over the ranks), the experts are each rank's own.
        step = [r["layer_grad_norms"] for r in rows if r["step"] == 4]
        self.assertAlmostEqual(step[0]["moe.router.weight"], step[1]["moe.router.weight"], places=5)
        self.assertNotAlmostEqual(step[0]["moe.experts.0.0.weight"], step[1]["moe.experts.0.0.weight"], places=5)

    def test_load_imbalance_gives_unequal_batches(self):
        _, expected, rows, traces, config = case(
            "imbalance", "--fault", "load_imbalance", "--magnitude", "strong",
            "--set", "imbalance.rank=0", "--set", "imbalance.pattern=one_heavy", "--set", "batch_size_per_rank=16")
        self.assertEqual(config["batch_size_per_rank"], 16)
        sizes = {r: {row["batch_size"] for row in rows if row["rank"] == r} for r in range(2)}
        self.assertEqual(sizes, {0: {64}, 1: {16}})
        self.assertGreater(median(traces[0], "forward_ms"), median(traces[1], "forward_ms"))


if __name__ == "__main__":
    unittest.main()
