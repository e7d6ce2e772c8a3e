"""Every committed matrix (workloads/matrices/*.json) plans, and every run it plans is accepted by its
workload's configuration checks: fault, then the matrix' --set values, then the workload's own validation
(unknown optimizer, schedule, dataset, model, architecture, order, world size, a DDP cap that changes
nothing, ...). Nothing is run: a typo in a matrix shows here, not an hour into `make-cases.py`."""
import argparse
import importlib.util
import json
import os
import sys
import tempfile
import unittest

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "workloads"))

import ddp  # noqa: E402
import serve  # noqa: E402
import train  # noqa: E402
from faultlib import data_order, datasets, injector, models, options  # noqa: E402


def load_make_cases():
    spec = importlib.util.spec_from_file_location("make_cases", os.path.join(ROOT, "scripts", "make-cases.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def set_args(sets):
    return [f"{k}={json.dumps(v) if not isinstance(v, str) else v}" for k, v in sets.items()]


def check_training(run):
    config = train.default_config(run["seed"])
    injector.inject("training", run["fault"], run["magnitude"], config, run["seed"])
    options.apply_sets(config, options.parse_sets(set_args(run["sets"])))
    train.optimizer_key(config["optimizer"])
    steps = config["steps"]
    if isinstance(steps, dict):  # a time budget: train.py turns it into steps at the pace it probes
        assert set(steps) == {"seconds"} and float(steps["seconds"]) > 0, steps
        steps = 1000
    train.lr_factor(config["lr_schedule"], 0, int(steps))
    if not (isinstance(config.get("lr"), dict) and "times_divergence" in config["lr"]):
        train.resolve_lr(config)
    assert config["dataset"]["name"] in datasets.DATASETS, config["dataset"]["name"]
    assert config["model"].get("type", "mlp") in models.TYPES, config["model"]
    assert (config.get("data_order") or "fresh_shuffle") in data_order.ORDERS, config.get("data_order")
    assert int(config["batch_size"]) >= 1 and int(steps) >= 1


def check_inference(run):
    serve.configure(run["fault"], run["magnitude"], run["seed"], set_args(run["sets"]))


def check_distributed(run):
    args = argparse.Namespace(fault=run["fault"], magnitude=run["magnitude"], seed=run["seed"],
                              set=set_args(run["sets"]))
    config, _ = ddp.build_config(args)
    if run["fault"] == "small_bucket_size":
        # The refusal ddp.py makes before starting the ranks: the fault's cap must give more buckets than 25 MB.
        x, y, info = ddp.load_data(config)
        model = ddp.build_model(config, list(x.shape[1:]), info["num_classes"], 0, config["world_size"])
        counts = ddp.fault_bucket_counts(run["fault"], config, args.set, model)
        assert not counts or counts["ddp_buckets"] > counts["ddp_buckets_at_default_cap"], counts


CHECKS = {"train.py": check_training, "serve.py": check_inference, "ddp.py": check_distributed}


class MatricesTest(unittest.TestCase):
    def test_every_planned_run_is_accepted_by_its_workload(self):
        make_cases = load_make_cases()
        folder = os.path.join(ROOT, "workloads", "matrices")
        names = sorted(f[:-5] for f in os.listdir(folder) if f.endswith(".json"))
        self.assertIn("novel-training", names)
        planned = 0
        for name in names:
            for matrix in make_cases.load_matrix(name):
                for run in make_cases.plan(matrix):
                    with self.subTest(matrix=name, run=run["id"]):
                        CHECKS[run["workload"]](run)
                    planned += 1
        self.assertGreater(planned, 400)

    def test_a_corpus_built_in_pieces_keeps_every_run_in_its_plan(self):
        make_cases = load_make_cases()
        training = make_cases.plan(make_cases.load_matrix("training")[0], 1)
        inference = make_cases.plan(make_cases.load_matrix("inference")[0], 1)
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "plan.jsonl")
            make_cases.write_plan(path, inference)
            make_cases.write_plan(path, training)
            make_cases.write_plan(path, training[:2])  # planned again: replaced, not repeated
            with open(path) as f:
                ids = [json.loads(line)["id"] for line in f]
        self.assertEqual(sorted(ids), sorted(r["id"] for r in inference + training))

    def test_another_seed_draws_the_same_axes_afresh_under_other_ids(self):
        make_cases = load_make_cases()
        matrix = make_cases.load_matrix("novel-training")[0]
        own = make_cases.plan(matrix)
        fresh = make_cases.plan(matrix, seed=int(matrix["seed"]) + 1)
        self.assertEqual(len(fresh), len(own))
        self.assertEqual([r["fault"] for r in fresh], [r["fault"] for r in own])
        self.assertTrue(all(r["id"] == f"novel-training-{int(matrix['seed']) + 1}-{i:04d}"
                            for i, r in enumerate(fresh)))
        self.assertFalse({r["id"] for r in fresh} & {r["id"] for r in own})
        self.assertEqual([r["seed"] for r in fresh], [r["seed"] + 1 for r in own])
        # Every value drawn is one of the matrix' own, and the draw differs from the matrix' own.
        for axis in matrix["axes"]:
            own_values = {json.dumps(r["axes"].get(axis), sort_keys=True) for r in own}
            self.assertLessEqual({json.dumps(r["axes"].get(axis), sort_keys=True) for r in fresh}, own_values)
        self.assertNotEqual([r["axes"] for r in fresh], [r["axes"] for r in own])
        # The matrix' own seed plans exactly as without one.
        self.assertEqual(make_cases.plan(matrix, seed=int(matrix["seed"]))[0]["sets"], own[0]["sets"])


class QuietMachineTest(unittest.TestCase):
    """make-cases waits for a quiet machine before a run: the runs measure time."""

    def test_busy_share_counts_every_state_but_idle_and_iowait(self):
        make_cases = load_make_cases()
        # user nice system idle iowait irq softirq steal guest guest_nice
        first = "cpu  100 0 50 800 50 0 0 0 0 0\ncpu0 50 0 25 400 25 0 0 0 0 0\n"
        second = "cpu  160 0 70 900 60 0 5 15 7 0\ncpu0 80 0 35 450 30 0 2 8 3 0\n"
        readings = iter([first, second])
        share = make_cases.busy_share(lambda: next(readings), 0.25, sleep=lambda s: None)
        # busy 60 + 20 + 5 + 15 = 100 of those and idle 100 + iowait 10: 210 (guest is inside user already)
        self.assertAlmostEqual(share, 100 / 210)
        self.assertIsNone(make_cases.busy_share(lambda: "intr 1 2 3\n", 0.25, sleep=lambda s: None))

        def unreadable():
            raise OSError("no /proc")
        self.assertIsNone(make_cases.busy_share(unreadable, 0.25, sleep=lambda s: None))

    def test_waits_while_the_machine_is_busy_and_gives_up_after_the_limit(self):
        make_cases = load_make_cases()
        now = [0.0]

        def sleep(seconds):
            now[0] += seconds
        shares = iter([0.9, 0.8, 0.1])
        share, waited, quiet = make_cases.wait_until_quiet(lambda: next(shares), 0.25, 60, poll=5, sleep=sleep,
                                                           clock=lambda: now[0])
        self.assertEqual((share, waited, quiet), (0.1, 10.0, True))
        now[0] = 0.0
        share, waited, quiet = make_cases.wait_until_quiet(lambda: 0.9, 0.25, 12, poll=5, sleep=sleep,
                                                           clock=lambda: now[0])
        self.assertEqual((share, waited, quiet), (0.9, 12.0, False))  # the last wait cut to the limit
        # Where the load cannot be read, nothing is waited for.
        self.assertEqual(make_cases.wait_until_quiet(lambda: None, 0.25, 60, sleep=sleep, clock=lambda: 0.0),
                         (None, 0.0, True))


if __name__ == "__main__":
    unittest.main()
