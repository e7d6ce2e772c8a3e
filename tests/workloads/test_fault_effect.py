"""scripts/measure-fault-effect.py: the twin of a run, the outcome measures and the verdict (pure Python)."""
import importlib.util
import json
import math
import os
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_spec = importlib.util.spec_from_file_location("measure_fault_effect",
                                               os.path.join(ROOT, "scripts", "measure-fault-effect.py"))
mfe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(mfe)


def write_run(folder, losses, dt=0.01):
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "metrics.jsonl"), "w") as f:
        for i, x in enumerate(losses):
            f.write(json.dumps({"step": i, "time": 100 + i * dt, "loss": x}) + "\n")
    return folder


class FaultEffectTest(unittest.TestCase):
    def test_twin_keeps_the_seed_and_drops_what_the_fault_sets(self):
        run = {"id": "training-0007", "scenario": "training", "fault": "unshuffled_data", "magnitude": "weak",
               "seed": 1007, "sets": {"data_order": "class_blocks", "shuffle_buffer": 0, "optimizer.name": "adam"}}
        twin = mfe.twin_of(run)
        self.assertEqual((twin["id"], twin["fault"], twin["seed"]), ("training-0007", "none", 1007))
        self.assertEqual(twin["sets"], {"optimizer.name": "adam"})
        self.assertEqual(run["sets"]["data_order"], "class_blocks")  # the plan itself is left alone
        healthy = dict(run, fault="none", sets={"steps": 100})
        reseed = mfe.twin_of(healthy)
        self.assertEqual(reseed["id"], "training-0007-reseed")
        self.assertNotEqual(reseed["seed"], healthy["seed"])
        self.assertEqual(reseed["sets"], {"steps": 100})

    def test_a_fault_filter_keeps_the_healthy_runs_for_their_reseeds(self):
        plan = [{"id": f"r{i}", "scenario": sc, "fault": f} for i, (sc, f) in enumerate(
            [("training", "none"), ("training", "lr_too_high"), ("training", "unshuffled_data"),
             ("inference", "none"), ("inference", "cold_start")])]
        ids = lambda runs: [r["id"] for r in runs]  # noqa: E731
        self.assertEqual(ids(mfe.runs_to_twin(plan, ["training"], ["unshuffled_data"])), ["r0", "r2"])
        self.assertEqual(ids(mfe.runs_to_twin(plan, ["training"], None)), ["r0", "r1", "r2"])
        self.assertEqual(ids(mfe.runs_to_twin(plan, ["training", "inference"], ["cold_start"])), ["r0", "r3", "r4"])

    def test_outcome_is_relative_to_the_first_tenth(self):
        with tempfile.TemporaryDirectory() as tmp:
            o = mfe.training_outcome(write_run(tmp, [2.0] * 10 + [1.0] * 80 + [0.5] * 10))
        self.assertAlmostEqual(o["final"], 0.25)
        self.assertAlmostEqual(o["mean"], (20 + 80 + 5) / 100 / 2.0)
        self.assertAlmostEqual(o["peak"], 0.5)
        self.assertAlmostEqual(o["noise"], math.log(1e-3))  # a staircase has no noise around its running median
        self.assertEqual(o["nonfinite"], 0)

    def test_serving_outcome_sees_a_slow_start(self):
        with tempfile.TemporaryDirectory() as tmp:
            os.makedirs(tmp, exist_ok=True)
            with open(os.path.join(tmp, "metrics.jsonl"), "w") as f:
                for i in range(100):
                    f.write(json.dumps({"request_id": i, "time": i, "latency_ms": 40.0 if i < 2 else 5.0}) + "\n")
            o = mfe.serving_outcome(tmp)
        self.assertAlmostEqual(o["start"], math.log(8.0))
        self.assertAlmostEqual(o["first"], math.log(40.0))
        self.assertAlmostEqual(o["p50"], math.log(5.0))

    def test_distributed_outcome_reads_step_times_per_rank(self):
        with tempfile.TemporaryDirectory() as tmp:
            with open(os.path.join(tmp, "metrics.jsonl"), "w") as f:
                for step in range(20):
                    for rank, ms in ((0, 10.0), (1, 20.0)):
                        f.write(json.dumps({"step": step, "rank": rank, "time": step * ms / 1000.0}) + "\n")
            o = mfe.distributed_outcome(tmp)
        self.assertEqual(o["units"], 2 * 17)  # the first two steps of each rank are start-up
        self.assertAlmostEqual(o["rank_spread"], math.log(2.0))
        self.assertAlmostEqual(o["step_p90"], math.log(0.020))
        # A straggler's rank is the fault's own setting: its twin must not keep it.
        run = {"id": "d-1", "fault": "straggler_rank", "seed": 1, "sets": {"straggler.rank": 0, "steps": 60}}
        self.assertEqual(mfe.twin_of(run)["sets"], {"steps": 60})

    def test_a_fault_acts_when_it_exceeds_what_a_reseed_changes(self):
        with tempfile.TemporaryDirectory() as tmp:
            twin = mfe.training_outcome(write_run(os.path.join(tmp, "twin"), [2.0 * math.exp(-i / 30) for i in range(100)]))
            same = mfe.training_outcome(write_run(os.path.join(tmp, "same"), [2.0 * math.exp(-i / 31) for i in range(100)]))
            slow = mfe.training_outcome(write_run(os.path.join(tmp, "slow"), [2.0 * math.exp(-i / 300) for i in range(100)]))
            nan = mfe.training_outcome(write_run(os.path.join(tmp, "nan"), [2.0] * 50 + [float("nan")] * 50))
        reseeds = [{"final": 0.01, "mean": -0.02, "noise": 0.1, "peak": 0.0},
                   {"final": -0.03, "mean": 0.02, "noise": -0.2, "peak": 0.01}]
        limits = mfe.thresholds(reseeds, mfe.MEASURES["training"])
        self.assertAlmostEqual(limits["final"], 0.03)
        self.assertAlmostEqual(mfe.thresholds(reseeds, ["final"], 0.5)["final"], 0.02)
        acted, by = mfe.verdict(mfe.effects(same, twin), same, twin, limits)
        self.assertFalse(acted, by)
        acted, by = mfe.verdict(mfe.effects(slow, twin), slow, twin, limits)
        self.assertTrue(acted)
        self.assertIn("final", by)
        self.assertIn("mean", by)
        acted, by = mfe.verdict(mfe.effects(nan, twin), nan, twin, limits)
        self.assertEqual(by[0], "nonfinite")
        # Better than its twin is no effect: a "too high" rate that trains faster did the run no harm.
        acted, by = mfe.verdict(mfe.effects(twin, slow), twin, slow, limits)
        self.assertFalse(acted, by)


if __name__ == "__main__":
    unittest.main()
