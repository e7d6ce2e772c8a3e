"""The training fault injector really changes the program (run: python3 -m unittest discover -s tests/workloads)."""
import json
import math
import os
import shutil
import sys
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "workloads"))

try:
    import torch
except ImportError:  # pragma: no cover - the CTest wrapper skips without torch
    raise unittest.SkipTest("python3-torch is not installed")

import train  # noqa: E402
from faultlib import data_order, datasets, injector, models, options, training_faults  # noqa: E402


def faulted(fault, magnitude="medium", sets=(), seed=0):
    config = train.default_config(seed)
    params = injector.inject("training", fault, magnitude, config, seed)
    options.apply_sets(config, options.parse_sets(list(sets)))
    return config, params


def run_train(test, argv):
    """Runs train.py with `argv` into a folder `test` removes afterwards: (rows, config, expected, folder)."""
    out = tempfile.mkdtemp(prefix="cann-debug-train-")
    test.addCleanup(shutil.rmtree, out, True)
    train.main([*argv, "--output", out])
    docs = []
    for name in ("metrics.jsonl", "config.json", "expected.json"):
        with open(os.path.join(out, name)) as f:
            docs.append([json.loads(l) for l in f] if name.endswith(".jsonl") else json.load(f))
    return (*docs, out)


def label_changes(labels):
    return sum(1 for a, b in zip(labels, labels[1:]) if a != b)


class DataOrderTest(unittest.TestCase):
    def setUp(self):
        gen = torch.Generator().manual_seed(0)
        self.labels = torch.arange(400) % 8
        self.features = torch.randn(400, 5, generator=gen)

    def order(self, name):
        return data_order.EpochOrder(name, self.labels, self.features, seed=1)

    def test_every_order_is_a_permutation(self):
        for name in data_order.ORDERS:
            self.assertEqual(sorted(self.order(name)), list(range(400)), name)

    def test_fresh_shuffle_differs_each_epoch_and_mixes_labels(self):
        o = self.order("fresh_shuffle")
        a, b = list(o), list(o)
        self.assertNotEqual(a, b)
        # Random order: about 7/8 of neighbours differ in label.
        self.assertGreater(label_changes([int(self.labels[i]) for i in a]), 300)

    def test_sorted_by_label_is_sorted(self):
        seq = [int(self.labels[i]) for i in self.order("sorted_by_label")]
        self.assertEqual(seq, sorted(seq))
        self.assertEqual(label_changes(seq), 7)

    def test_class_blocks_keep_labels_together(self):
        seq = [int(self.labels[i]) for i in self.order("class_blocks")]
        self.assertLess(label_changes(seq), 60)

    def test_sorted_by_feature_sorts_a_column_that_carries_the_label(self):
        self.features[:, 3] += 3.0 * self.labels.float()  # column 3 tells the classes apart, the rest is noise
        idx = list(self.order("sorted_by_feature"))
        col = [float(self.features[i, 3]) for i in idx]
        self.assertEqual(col, sorted(col))
        # Neighbours in that order mostly share a label (random order: 7 in 8 neighbours differ).
        self.assertLess(label_changes([int(self.labels[i]) for i in idx]), 150)

    def test_same_permutation_repeats_every_epoch(self):
        o = self.order("same_permutation")
        a, b = list(o), list(o)
        self.assertEqual(a, b)
        self.assertNotEqual(a, sorted(a))

    def test_class_shards_keep_labels_together_in_a_new_order_every_epoch(self):
        o = self.order("class_shards")
        a, b = list(o), list(o)
        self.assertNotEqual(a, b)
        for epoch in (a, b):
            self.assertLess(label_changes([int(self.labels[i]) for i in epoch]), 60)
        # Whole shards move: a sample's neighbour inside a shard stays its neighbour.
        shard = list(self.order("class_blocks"))[:12]
        at = b.index(shard[0])
        self.assertEqual(b[at:at + 12], shard)

    def test_shuffle_buffer_mixes_only_locally(self):
        gen = torch.Generator().manual_seed(0)
        self.assertEqual(train.shuffle_buffered(list(range(100)), 1, gen), list(range(100)))
        out = train.shuffle_buffered(list(range(1000)), 10, gen)
        self.assertEqual(sorted(out), list(range(1000)))
        self.assertNotEqual(out, list(range(1000)))
        # An element leaves the buffer at most buffer-1 places before its position.
        self.assertTrue(all(out.index(v) >= v - 9 for v in range(0, 1000, 37)))


class RegressionTargetOrderTest(unittest.TestCase):
    """Stored orders of a regression set: by target value, in bands of the target, by a feature."""

    def setUp(self):
        gen = torch.Generator().manual_seed(0)
        self.features = torch.randn(400, 5, generator=gen)
        self.targets = 2.0 * self.features[:, 2] + 0.1 * torch.randn(400, generator=gen)

    def order(self, name):
        return list(data_order.EpochOrder(name, self.targets, self.features, seed=1))

    def test_every_order_is_a_permutation(self):
        for name in data_order.ORDERS:
            self.assertEqual(sorted(self.order(name)), list(range(400)), name)

    def test_target_bins_have_equal_counts(self):
        bins = data_order.classes_of(self.targets)
        self.assertEqual(torch.bincount(bins).tolist(), [400 // data_order.TARGET_BINS] * data_order.TARGET_BINS)
        # Bins follow the target: every value of a higher bin is above every value of a lower one.
        for b in range(1, data_order.TARGET_BINS):
            self.assertGreater(float(self.targets[bins == b].min()), float(self.targets[bins == b - 1].max()))

    def test_sorted_by_label_sorts_the_target(self):
        seq = [float(self.targets[i]) for i in self.order("sorted_by_label")]
        self.assertEqual(seq, sorted(seq))

    def test_class_blocks_keep_a_band_of_the_target_together(self):
        bins = data_order.classes_of(self.targets)
        seq = [int(bins[i]) for i in self.order("class_blocks")]
        self.assertLess(label_changes(seq), 60)
        fresh = [int(bins[i]) for i in self.order("fresh_shuffle")]
        self.assertGreater(label_changes(fresh), 300)

    def test_sorted_by_feature_sorts_the_column_that_carries_the_target(self):
        col = [float(self.features[i, 2]) for i in self.order("sorted_by_feature")]
        self.assertEqual(col, sorted(col))


class RegressionTaskTest(unittest.TestCase):
    def test_regression_sets_are_standardised_float_targets(self):
        for name in datasets.REGRESSION:
            x, y, image, info = datasets.load(name, 0)
            self.assertEqual(info["task"], "regression", name)
            self.assertTrue(y.dtype.is_floating_point, name)
            self.assertAlmostEqual(float(y.mean()), 0.0, places=4)
            self.assertAlmostEqual(float(y.std(unbiased=False)), 1.0, places=3)
            self.assertEqual(len(x), len(y))
            self.assertIsNone(image)
        _, y, _, info = datasets.load("digits", 0)
        self.assertEqual((info["task"], info["num_classes"], y.dtype), ("classification", 10, torch.int64))

    def test_a_regression_run_learns_the_target_with_a_squared_error(self):
        rows, config, _, _ = run_train(self, ["--fault", "none", "--set", "dataset.name=friedman1",
                                              "--set", "optimizer.name=adam", "--set", "steps=150"])
        losses = [r["loss"] for r in rows]
        self.assertEqual((config["task"], config["loss"]), ("regression", "mse"))
        self.assertNotIn("num_classes", config["dataset"])
        # A standardised target: the untrained network's squared error is about the target's variance (1),
        # and Friedman's function is learnt well below it.
        self.assertGreater(sum(losses[:10]) / 10, 0.5)
        self.assertLess(sum(losses[-20:]) / 20, 0.5 * sum(losses[:10]) / 10)


class RegularisedRecipeTest(unittest.TestCase):
    def test_label_noise_gives_that_share_of_the_samples_another_class(self):
        _, clean, _, _ = datasets.load("blobs", 3)
        _, noisy, _, info = datasets.load("blobs", 3, None, 0.2)
        self.assertAlmostEqual(float((clean != noisy).float().mean()), 0.2, places=3)
        self.assertEqual(info["label_noise"], 0.2)
        self.assertEqual(int(noisy.max()) + 1, info["num_classes"])
        with self.assertRaises(ValueError):
            datasets.load("diabetes", 3, None, 0.2)  # a regression target has no class to flip

    def test_dropout_drops_hidden_units_and_leaves_the_parameter_names(self):
        for kind in models.TYPES:
            plain = models.build({"type": kind, "width": 16, "depth": 2}, 8, 3, None)
            dropped = models.build({"type": kind, "width": 16, "depth": 2, "dropout": 0.3}, 8, 3, None)
            self.assertFalse(any(isinstance(m, torch.nn.Dropout) and m.p > 0 for m in plain.modules()), kind)
            self.assertTrue(any(isinstance(m, torch.nn.Dropout) and m.p == 0.3 for m in dropped.modules()), kind)
        # Without dropout the layers keep their indices: logs name the same tensors as before.
        mlp = models.build({"type": "mlp", "width": 16, "depth": 2}, 8, 3, None)
        self.assertEqual([n for n, _ in mlp.named_parameters()][::2], ["0.weight", "2.weight", "4.weight"])
        with self.assertRaises(ValueError):
            models.build({"type": "mlp", "dropout": 1.0}, 8, 3, None)


class InjectorTest(unittest.TestCase):
    def test_divergence_rate_really_diverges(self):
        config = train.default_config(0)
        x, y, _, info = datasets.load("digits", 0)
        model = models.build(config["model"], x.shape[1], info["num_classes"], None)
        loss_fn = train.loss_fn_for(config)
        lr_div = train.divergence_lr(config, model, loss_fn, x, y, 32, seed=1)
        self.assertGreater(lr_div, 10 * train.DEFAULT_LR["sgd_momentum"])
        self.assertLess(lr_div, 10.0)
        # The probe trains a copy: the model itself is untouched.
        before = [p.detach().clone() for p in model.parameters()]
        train.divergence_lr(config, model, loss_fn, x, y, 32, seed=1)
        self.assertTrue(all(torch.equal(a, b) for a, b in zip(before, model.parameters())))

        def final_loss(lr):
            torch.manual_seed(0)
            m = models.build(config["model"], x.shape[1], info["num_classes"], None)
            opt = train.make_optimizer(config["optimizer"], m.parameters(), lr)
            gen = torch.Generator().manual_seed(2)
            for _ in range(80):
                idx = torch.randint(len(y), (32,), generator=gen)
                opt.zero_grad()
                loss = loss_fn(m(x[idx]), y[idx])
                loss.backward()
                opt.step()
            return loss_fn(m(x), y).item()

        healthy = final_loss(train.DEFAULT_LR["sgd_momentum"])
        faulted = final_loss(4.0 * lr_div)
        self.assertTrue(not math.isfinite(faulted) or faulted > 3 * healthy, (healthy, faulted))

    def test_lr_too_high_builds_the_optimizer_with_the_high_rate(self):
        for name in ("sgd", "adam", "rmsprop"):
            config, params = faulted("lr_too_high", "strong", [f"optimizer.name={name}"])
            self.assertEqual(config["lr"], {"times_divergence": params["lr_times_divergence"]})
            with self.assertRaises(ValueError):
                train.resolve_lr(config)  # only a range test on the model resolves it
        rows, config, _, _ = run_train(self, ["--fault", "lr_too_high", "--magnitude", "strong",
                                              "--set", "optimizer.name=adam", "--set", "steps=12"])
        lr_div = config["lr_range_test"]["divergence_lr"]
        self.assertAlmostEqual(config["lr"], 4.0 * lr_div)
        self.assertAlmostEqual(config["optimizer"]["lr"], config["lr"])
        self.assertTrue(all(abs(r["lr"] - config["lr"]) < 1e-12 for r in rows))
        self.assertGreater(config["lr"], 10 * train.DEFAULT_LR["adam"])

    def test_every_optimizer_is_built_as_named_with_the_rate_asked(self):
        params = [torch.nn.Parameter(torch.zeros(3))]
        kinds = {"sgd": torch.optim.SGD, "adam": torch.optim.Adam, "adamw": torch.optim.AdamW,
                 "rmsprop": torch.optim.RMSprop, "nadam": torch.optim.NAdam, "radam": torch.optim.RAdam,
                 "adagrad": torch.optim.Adagrad}
        self.assertEqual(set(kinds), set(train.OPTIMIZERS))
        for name, kind in kinds.items():
            opt = train.make_optimizer({"name": name}, params, 0.0123)
            self.assertIs(type(opt), kind, name)
            self.assertEqual(opt.param_groups[0]["lr"], 0.0123, name)
            self.assertIn(train.optimizer_key({"name": name}), train.DEFAULT_LR)
        nesterov = train.make_optimizer({"name": "sgd", "momentum": 0.9, "nesterov": True}, params, 0.1)
        self.assertTrue(nesterov.param_groups[0]["nesterov"])

    def test_schedules_follow_their_shape(self):
        steps = 100
        linear = [train.lr_factor({"kind": "linear", "warmup_steps": 10}, s, steps) for s in range(steps)]
        self.assertAlmostEqual(linear[0], 0.1)
        self.assertAlmostEqual(linear[9], 1.0)
        self.assertTrue(all(a >= b for a, b in zip(linear[9:], linear[10:])))
        self.assertLess(linear[-1], 0.02)
        exponential = [train.lr_factor({"kind": "exponential", "gamma": 0.99}, s, steps) for s in range(steps)]
        self.assertAlmostEqual(exponential[50], 0.99 ** 50)
        with self.assertRaises(SystemExit):
            train.lr_factor({"kind": "polynomial"}, 0, steps)

    def test_set_wins_over_the_fault(self):
        config, _ = faulted("lr_too_high", "strong", ["lr=0.01"])
        self.assertEqual(train.resolve_lr(config), 0.01)
        config, _ = faulted("grad_clip_too_low", "strong", ["clip_threshold=5"])
        self.assertEqual(config["clip_threshold"], 5)
        config, _ = faulted("batch_too_small", "strong", ["batch_size=64"])
        self.assertEqual(config["batch_size"], 64)
        config, _ = faulted("unshuffled_data", "strong", ["data_order=fresh_shuffle"])
        self.assertEqual(config["data_order"], "fresh_shuffle")

    def test_magnitudes_order_the_fault_strength(self):
        weak, _ = faulted("batch_too_small", "weak")
        strong, _ = faulted("batch_too_small", "strong")
        self.assertGreater(weak["batch_size"], strong["batch_size"])
        _, pw = faulted("grad_clip_too_low", "weak")
        _, ps = faulted("grad_clip_too_low", "strong")
        self.assertGreater(pw["clip_times_initial_grad_norm"], ps["clip_times_initial_grad_norm"])

    def test_explosion_builds_a_deep_stack_with_a_large_init(self):
        config, params = faulted("gradient_explosion", "strong")
        model = models.build(config["model"], 64, 10, None)
        linears = [m for m in model.modules() if isinstance(m, torch.nn.Linear)]
        self.assertEqual(len(linears), params["depth"] + 1)
        std = float(linears[3].weight.std())
        expected = params["init_gain_vs_kaiming"] * math.sqrt(2.0 / linears[3].weight.shape[1])
        self.assertAlmostEqual(std, expected, delta=0.1 * expected)
        self.assertFalse(any(isinstance(m, torch.nn.BatchNorm1d) for m in model.modules()))

    def test_vanishing_builds_a_deep_sigmoid_stack(self):
        config, params = faulted("vanishing_gradient", "strong")
        model = models.build(config["model"], 64, 10, None)
        self.assertEqual(sum(isinstance(m, torch.nn.Sigmoid) for m in model.modules()), params["depth"])

    def test_unknown_fault_is_a_usage_error(self):
        with self.assertRaises(SystemExit):
            faulted("not_a_fault")


class TrainRunTest(unittest.TestCase):
    def run_case(self, *argv):
        return run_train(self, [*argv, "--set", "steps=12"])

    def test_clip_threshold_is_far_below_every_step_norm(self):
        rows, config, expected, _ = self.run_case("--fault", "grad_clip_too_low", "--magnitude", "strong")
        clip = config["clip_threshold"]
        self.assertIsInstance(clip, float)
        self.assertTrue(all(r["grad_norm"] > 10 * clip for r in rows))
        self.assertTrue(all(r["clip_threshold"] == clip for r in rows))
        self.assertEqual(expected["root_cause"], "grad_clip_too_low")
        self.assertEqual(expected["measured"]["clipped_steps_fraction"], 1.0)

    def test_healthy_run_writes_the_case_layout(self):
        rows, config, expected, out = self.run_case("--fault", "none", "--set", "batch_size=16")
        for name in ("config.json", "metrics.jsonl", "host_metrics.jsonl", "trace.json", "expected.json"):
            self.assertTrue(os.path.exists(os.path.join(out, name)), name)
        self.assertEqual([r["step"] for r in rows], list(range(12)))
        self.assertTrue(config["shuffle"])
        self.assertEqual(config["steps_per_epoch"], 1797 // 16)
        self.assertEqual(expected["root_cause"], "healthy")
        self.assertEqual(expected["measured"]["clipped_steps_fraction"], 0.0)
        self.assertTrue(expected["healthy"])
        self.assertEqual(expected["variant"]["batch_size"], 16)
        with open(os.path.join(out, "trace.json")) as f:
            trace = json.load(f)
        names = {e["name"] for e in trace}
        self.assertTrue({"forward", "backward", "optimizer_step", "data_loading"} <= names)
        self.assertIn("ProfilerStep#5", names)
        # Kineto's "Input Dims" (record_shapes): the model's first layer sees the batch of 16.
        first_layers = [e for e in trace if e["name"] == "aten::linear" and e["args"].get("Input Dims")]
        self.assertTrue(first_layers)
        self.assertEqual(min(first_layers, key=lambda e: e["ts"])["args"]["Input Dims"][0][0], 16)

    def test_unshuffled_run_records_its_order(self):
        rows, config, expected, _ = self.run_case("--fault", "unshuffled_data", "--magnitude", "strong",
                                                  "--set", "data_order=sorted_by_label")
        self.assertFalse(config["shuffle"])
        self.assertEqual(config["data_order"], "sorted_by_label")
        self.assertIsNone(config["shuffle_buffer"])
        # The kind of order, for learning the graph's hidden order_kind (docs/bayes.md).
        self.assertEqual(expected["hidden"], {"order_kind": "repeating"})

    def test_expected_json_records_the_order_that_ran(self):
        # The weak fault draws an order and a buffer; a matrix's --set data_order wins, and expected.json
        # must name the order the loader used, not the fault's first draw.
        drawn = set()
        for seed in range(8):
            config, params = faulted("unshuffled_data", "weak", ["data_order=class_blocks"], seed=seed)
            drawn.add(params["data_order"])
            ran = training_faults.as_run("unshuffled_data", params, config)
            self.assertEqual(ran["data_order"], "class_blocks")
            self.assertEqual(ran["shuffle_buffer_fraction"], 0.1)
        self.assertGreater(len(drawn - {"class_blocks"}), 0)
        # A reused permutation is a healthy order: the fault never draws it.
        self.assertNotIn("same_permutation", drawn)
        config, params = faulted("unshuffled_data", "weak", ["shuffle_buffer=0"])
        self.assertEqual(training_faults.as_run("unshuffled_data", params, config)["shuffle_buffer_fraction"], 0.0)
        config, params = faulted("batch_too_small", "strong", ["batch_size=64"])
        self.assertEqual(training_faults.as_run("batch_too_small", params, config)["batch_size"], 64)
        config, params = faulted("lr_too_high", "strong", ["lr=0.01"])
        self.assertEqual(training_faults.as_run("lr_too_high", params, config)["replaced_by_set"], {"lr": 0.01})
        config, params = faulted("lr_too_high", "strong")
        self.assertNotIn("replaced_by_set", training_faults.as_run("lr_too_high", params, config))


class LossSpikeFaultTest(unittest.TestCase):
    """loss_spike changes the program (a loader that lets a few batches of corrupt records through mid-run)
    and its runs show the symptom the label names: the loss jumps, then recovers."""

    def test_loss_spike_feeds_corrupt_records_and_the_run_recovers(self):
        rows, config, expected, _ = run_train(self, [
            "--fault", "loss_spike", "--magnitude", "strong", "--seed", "4", "--set", "steps=160",
            "--set", "dataset.name=breast_cancer", "--set", "optimizer.name=adam", "--set", "model.type=mlp"])
        corrupt = config["data_corruption"]["steps"]
        self.assertEqual(len(corrupt), expected["fault_params"]["corrupt_batches"])
        self.assertEqual(corrupt, list(range(corrupt[0], corrupt[0] + len(corrupt))))
        self.assertTrue(0.35 * 160 <= corrupt[0] <= 0.65 * 160)
        loss = [r["loss"] for r in rows]
        before = sorted(loss[corrupt[0] - 10:corrupt[0]])[5]
        self.assertGreater(max(loss[i] for i in corrupt), 10 * before)
        after = sorted(loss[-10:])[5]
        self.assertLess(after, max(loss[i] for i in corrupt) / 10)  # a spike, not a blow-up it stays in
        self.assertEqual(expected["root_cause"], "loss_spike")

    def test_a_clean_loader_is_the_fix(self):
        config, params = faulted("loss_spike", "weak", ["data_corruption=null"])
        self.assertIsNone(config["data_corruption"])
        self.assertEqual(training_faults.as_run("loss_spike", params, config)["replaced_by_set"],
                         {"data_corruption": None})


class LossScaleOverflowFaultTest(unittest.TestCase):
    """loss_scale_overflow changes the program (fp16 gradients under a dynamic loss scaler that grows its
    scale again after a few clean iterations) and its runs skip the iterations whose gradients overflowed."""

    SETS = ["--set", "steps=120", "--set", "dataset.name=breast_cancer", "--set", "model.type=mlp"]

    def test_the_scaler_keeps_growing_into_overflow_and_skips(self):
        rows, config, expected, _ = run_train(self, ["--fault", "loss_scale_overflow", "--magnitude", "strong",
                                                     "--seed", "3", *self.SETS])
        self.assertTrue(config["fp16"])
        self.assertEqual(config["loss_scale_window"], 1)
        skipped = [r for r in rows if r["skipped_iterations"]]
        # Window 1, no hysteresis: once the scale has climbed to where the gradients overflow, every second
        # iteration overflows, is skipped and halves the scale; the clean one doubles it again.
        self.assertGreater(len(skipped), 0.4 * len(rows))
        for r in skipped:
            self.assertIsNone(r["grad_norm"])  # no update, no norm logged
        for a, b in zip(rows, rows[1:]):
            self.assertEqual(b["loss_scale"], a["loss_scale"] / 2 if a["skipped_iterations"] else
                             a["loss_scale"] * 2)
        self.assertEqual(expected["measured"]["skipped_iterations"], len(skipped))

    def test_a_healthy_fp16_run_keeps_its_scale_and_bf16_has_none(self):
        rows, config, expected, _ = run_train(self, ["--fault", "none", "--seed", "3", "--set", "fp16=true",
                                                     *self.SETS])
        self.assertEqual(config["loss_scale_window"], 1000)
        self.assertEqual(sum(r["skipped_iterations"] for r in rows), expected["measured"]["skipped_iterations"])
        self.assertLess(expected["measured"]["skipped_fraction"], 0.05)
        rows, config, _, _ = run_train(self, ["--fault", "none", "--seed", "3", "--set", "bf16=true", *self.SETS])
        self.assertNotIn("loss_scale", rows[0])
        self.assertEqual({r["skipped_iterations"] for r in rows}, {0})  # Megatron's counter, always 0
        self.assertNotIn("loss_scale_window", config)

    def test_overflow_is_what_float16_cannot_hold(self):
        from faultlib import mixed_precision
        model = torch.nn.Linear(2, 1)
        config = {"fp16": True, "hysteresis": 1, "initial_loss_scale": 1024.0}
        p = mixed_precision.GradientPrecision(config)
        # The gradients of the scaled loss, as backward leaves them: 70000 is beyond float16's 65504.
        model.weight.grad = torch.tensor([[1.0, 70000.0]])
        model.bias.grad = torch.tensor([0.5])
        self.assertFalse(p.unscale(model))
        self.assertEqual(p.scale, 512.0)
        model.weight.grad = torch.tensor([[1.0, 2.0]]) * 512.0
        self.assertTrue(p.unscale(model))
        self.assertTrue(torch.equal(model.weight.grad, torch.tensor([[1.0, 2.0]])))  # unscaled

    def test_fp16_and_bf16_together_is_a_usage_error(self):
        config, _ = faulted("loss_scale_overflow", "weak", ["bf16=true"])
        with self.assertRaises(SystemExit):
            train.mixed_precision.settings(config)



class HostInputBoundFaultTest(unittest.TestCase):
    """host_input_bound changes the program's machine: busy processes beside it take its CPUs for the run,
    and its host_metrics.jsonl shows them; none is left behind."""

    def test_busy_processes_take_the_cpus_while_the_run_lasts(self):
        rows, config, expected, out = run_train(self, [
            "--fault", "host_input_bound", "--magnitude", "weak", "--seed", "2", "--set", "steps=300"])
        cores = os.cpu_count() or 1
        self.assertEqual(config["competing_busy_processes"], cores)
        self.assertEqual(expected["fault_params"]["competing_busy_processes"], cores)
        runnable = []
        with open(os.path.join(out, "host_metrics.jsonl")) as f:
            for line in f:
                r = json.loads(line)
                if r["metric"] == "load.runnable":
                    runnable.append(r["value"])
        self.assertTrue(runnable)
        # The sidecars and the trainer: more runnable than the busy processes alone at the median sample.
        self.assertGreaterEqual(sorted(runnable)[len(runnable) // 2], cores + 1)
        self.assertEqual(len(rows), 300)

    def test_sidecars_stop_with_the_block(self):
        from faultlib import competitors
        with competitors.running(2) as procs:
            self.assertTrue(all(p.poll() is None for p in procs))
        self.assertTrue(all(p.poll() is not None for p in procs))


class ThroughputDropFaultTest(unittest.TestCase):
    """throughput_drop changes the program's machine mid-run: another job's busy processes start at a step
    of the run and stay to its end; the iterations after it take longer, and the log times each one."""

    def test_the_iterations_after_the_job_lands_are_slower(self):
        # Iterations of several milliseconds: the scheduler's time slices are a few ms, so an iteration much
        # shorter than one runs whole in a slice and only every few of them waits for the others.
        rows, config, expected, _ = run_train(self, [
            "--fault", "throughput_drop", "--magnitude", "strong", "--seed", "4", "--set", "steps=80",
            "--set", "model.width=256", "--set", "batch_size=256", "--set", "dataset.name=classification"])
        job = config["competing_job"]
        cores = os.cpu_count() or 1
        self.assertEqual(job["busy_processes"], 4 * cores)
        self.assertGreaterEqual(job["at_fraction"], 0.6)
        self.assertLessEqual(job["at_fraction"], 0.75)
        self.assertEqual(job["step"], int(job["at_fraction"] * 80))
        self.assertEqual(expected["fault_params"]["busy_processes"], 4 * cores)
        before = [r["iteration_time_ms"] for r in rows[5:job["step"]]]
        after = [r["iteration_time_ms"] for r in rows[job["step"] + 2:]]
        self.assertGreater(sum(after) / len(after), 1.5 * sum(before) / len(before))

    def test_a_time_budget_is_turned_into_steps_at_the_probed_pace(self):
        rows, config, expected, _ = run_train(self, ["--fault", "none", "--seed", "3", "--set", 'steps={"seconds": 0.5}'])
        budget = config["steps_budget"]
        self.assertEqual(budget["seconds"], 0.5)
        self.assertGreater(budget["probed_ms_per_iteration"], 0.0)
        # The recorded pace is rounded to a microsecond: the steps it implies agree within that rounding.
        probed = budget["probed_ms_per_iteration"]
        self.assertAlmostEqual(config["steps"] * probed, 500.0, delta=probed + 500.0 * 0.0005 / probed + 0.5)
        self.assertEqual(len(rows), config["steps"])
        self.assertTrue(all(r["iteration_time_ms"] > 0 for r in rows))


if __name__ == "__main__":
    unittest.main()
