// Tests of training_features on small series whose features are known by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "log_events.hpp"
#include "training_log.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;

json step_row(std::int64_t step, json loss) {
  return {{"step", step}, {"time", 1000.0 + static_cast<double>(step)}, {"loss", std::move(loss)}};
}

TEST(TrainingFeatures, ManifestIsSound) {
  const auto& m = training_features_factory().manifest();
  EXPECT_THAT(check_manifest(m), ::testing::IsEmpty());
  EXPECT_EQ(m.kind, ComponentKind::kExtractor);
  ASSERT_EQ(m.inputs.size(), 4u);
  EXPECT_EQ(m.inputs[0].name, "records");
  EXPECT_EQ(m.inputs[1].name, "metrics");
  EXPECT_EQ(m.inputs[2].name, "events");
  EXPECT_EQ(m.inputs[3].name, "config");
  for (const auto& in : m.inputs) EXPECT_FALSE(in.required) << in.name;
  EXPECT_EQ(m.inputs[3].accepts, std::vector<std::string>{"run_config/1"});
  EXPECT_EQ(m.outputs.at(0).name, "features");
  EXPECT_EQ(m.outputs.at(0).produces, "feature.set/1");
}

TEST(TrainingFeatures, LossTrendUsesTheFirstAndLastTenthOfTheRun) {
  // loss = 2 - 0.075 i over 20 steps: the edges are 2 rows; initial = (2 + 1.925) / 2, final = (0.65 + 0.575)
  // / 2.
  std::vector<json> rows;
  for (int i = 0; i < 20; ++i) rows.push_back(step_row(i, 2.0 - 0.075 * i));
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_EQ(set.scope, "run");
  EXPECT_NEAR(value_of(set, "loss.initial"), 1.9625, 1e-12);
  EXPECT_NEAR(value_of(set, "loss.final"), 0.6125, 1e-12);
  EXPECT_NEAR(value_of(set, "loss.final_over_initial"), 0.6125 / 1.9625, 1e-12);
  EXPECT_NEAR(value_of(set, "loss.max_over_initial"), 2.0 / 1.9625, 1e-12);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.jump_fraction"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.nonfinite_fraction"), 0.0);
  // A straight line has no noise around its running median.
  EXPECT_NEAR(value_of(set, "loss.residual_noise"), 0.0, 1e-12);
  EXPECT_EQ(unit_of(set, "loss.initial"), "loss");
  const EvidenceRef head = evidence_of(set, "loss.initial").at(0);
  EXPECT_EQ(head.first_step, 0);
  EXPECT_EQ(head.last_step, 1);
  EXPECT_EQ(head.start_ns, seconds_to_ns(1000.0));
  const EvidenceRef tail = evidence_of(set, "loss.final").at(0);
  EXPECT_EQ(tail.first_step, 18);
  EXPECT_EQ(tail.last_step, 19);
  // Without grad_norm, lr or config there are no gradient, learning-rate or data features.
  for (const auto& f : set.features) EXPECT_EQ(f.name.rfind("loss.", 0), 0u) << f.name;
}

TEST(TrainingFeatures, NonFiniteLossIsCountedAndPointedAt) {
  const std::vector<json> loss = {2.0, 2.0, 2.0, "nan", 2.0, "inf", 2.0, 2.0, 5.0, 2.0};
  std::vector<json> rows;
  for (int i = 0; i < 10; ++i) rows.push_back(step_row(i, loss[static_cast<std::size_t>(i)]));
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.nonfinite_fraction"), 0.2);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.first_nonfinite_step"), 3.0);
  EXPECT_EQ(evidence_of(set, "loss.first_nonfinite_step").at(0).first_step, 3);
  // Edge of 1 row: initial 2; the 5.0 at step 8 is the only finite value above twice that.
  EXPECT_DOUBLE_EQ(value_of(set, "loss.max_over_initial"), 2.5);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.jump_fraction"), 1.0 / 8.0);
  const auto jump = evidence_of(set, "loss.jump_fraction").at(1);
  EXPECT_EQ(jump.first_step, 8);
  EXPECT_EQ(jump.last_step, 8);
  // Periodicity needs an unbroken finite series.
  EXPECT_FALSE(find(set, "loss.oscillation_period"));
  for (const auto& f : set.features) EXPECT_TRUE(std::isfinite(f.value)) << f.name;
}

// 120 steps, 20 per epoch, a falling trend plus a sine with the epoch as period.
std::vector<json> periodic_rows(bool with_epoch) {
  std::vector<json> rows;
  for (int i = 0; i < 120; ++i) {
    json r = step_row(i, 2.0 - 0.005 * i + 0.3 * std::sin(2.0 * std::numbers::pi * i / 20.0));
    if (with_epoch) r["epoch"] = i / 20;
    rows.push_back(std::move(r));
  }
  return rows;
}

TEST(TrainingFeatures, LossPeriodicWithTheEpochHasHighEpochLagAutocorrelation) {
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(periodic_rows(true))}});
  EXPECT_DOUBLE_EQ(value_of(set, "data.steps_per_epoch"), 20.0);
  EXPECT_GT(value_of(set, "loss.epoch_lag_autocorr"), 0.999);
  // The residual is the sine (rms 0.3 / sqrt 2) plus the half-step offset of the centred mean of a line.
  EXPECT_NEAR(value_of(set, "loss.epoch_periodic_amplitude"), 0.3 / std::sqrt(2.0), 0.002);
  EXPECT_EQ(static_cast<int>(value_of(set, "loss.oscillation_period")) % 20, 0);
  EXPECT_GT(value_of(set, "loss.oscillation_autocorr"), 0.999);
}

TEST(TrainingFeatures, EpochLengthFallsBackToTheConfigAndIsAbsentWithoutEither) {
  const FeatureSet with_config = run_extractor({{kRecordsPort, records_of(periodic_rows(false))},
                                                {kConfigPort, config_of({{"steps_per_epoch", 20}})}});
  EXPECT_GT(value_of(with_config, "loss.epoch_lag_autocorr"), 0.999);
  EXPECT_FALSE(find(with_config, "data.steps_per_epoch"));  // only measured from the log
  const FeatureSet without = run_extractor({{kRecordsPort, records_of(periodic_rows(false))}});
  EXPECT_FALSE(find(without, "loss.epoch_lag_autocorr"));
  EXPECT_TRUE(find(without, "loss.oscillation_period"));
}

TEST(TrainingFeatures, NoisyLossWithoutPeriodHasLowEpochLagAutocorrelationAndMeasuredNoise) {
  std::vector<json> rows;
  std::uint32_t state = 12345;  // a fixed linear congruential sequence: uniform noise in [-0.5, 0.5)
  for (int i = 0; i < 120; ++i) {
    state = state * 1664525u + 1013904223u;
    const double u = static_cast<double>(state >> 8) / static_cast<double>(1u << 24) - 0.5;
    json r = step_row(i, 2.0 - 0.005 * i + u);
    r["epoch"] = i / 20;
    rows.push_back(std::move(r));
  }
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_LT(std::fabs(value_of(set, "loss.epoch_lag_autocorr")), 0.3);
  // Uniform noise of width 1 has a standard deviation of 0.289; the running median takes a little of it.
  EXPECT_GT(value_of(set, "loss.residual_noise"), 0.15);
  EXPECT_LT(value_of(set, "loss.residual_noise"), 0.45);
}

std::vector<json> gradient_rows(const std::vector<double>& norms, const json& clip) {
  std::vector<json> rows;
  for (std::size_t i = 0; i < norms.size(); ++i) {
    json r = step_row(static_cast<std::int64_t>(i), 2.0);
    r["grad_norm"] = norms[i];
    r["lr"] = 0.1;
    if (!clip.is_discarded()) r["clip_threshold"] = clip;
    rows.push_back(std::move(r));
  }
  return rows;
}

TEST(TrainingFeatures, GradientSpikeIsMeasuredAgainstTheMedian) {
  std::vector<double> norms(20, 1.0);
  norms[7] = 100.0;
  const FeatureSet set =
      run_extractor({{kRecordsPort, records_of(gradient_rows(norms, json(json::value_t::discarded)))}});
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.median"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.max"), 100.0);
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.log10_max_over_median"), 2.0);
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.spike_fraction"), 1.0 / 20.0);
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.log10_initial"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(set, "grad_norm.relative_noise"), 0.0);
  EXPECT_EQ(evidence_of(set, "grad_norm.max").at(0).first_step, 7);
  EXPECT_DOUBLE_EQ(value_of(set, "lr.initial"), 0.1);
  EXPECT_DOUBLE_EQ(value_of(set, "lr.times_grad_norm_median"), 0.1);
  // No clipping information at all: no clipping features.
  EXPECT_FALSE(find(set, "grad_norm.clip_fraction"));
}

TEST(TrainingFeatures, ClipFractionCountsStepsAboveTheThreshold) {
  std::vector<double> norms(10, 1.0);
  norms[2] = norms[5] = 0.05;
  const FeatureSet clipped = run_extractor({{kRecordsPort, records_of(gradient_rows(norms, 0.1))}});
  EXPECT_DOUBLE_EQ(value_of(clipped, "grad_norm.clip_fraction"), 0.8);
  EXPECT_DOUBLE_EQ(value_of(clipped, "grad_norm.log10_median_over_clip"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(clipped, "grad_norm.log10_clipped_over_clip"), 1.0);
  // A threshold at the usual norm catches most steps but cuts them shallowly: the depth is over the
  // clipped steps only (0.12 and 0.15 against 0.1), not over all of them.
  std::vector<double> near(10, 0.12);
  near[0] = 0.15;
  near[1] = near[2] = near[3] = 0.05;
  const FeatureSet shallow = run_extractor({{kRecordsPort, records_of(gradient_rows(near, 0.1))}});
  EXPECT_DOUBLE_EQ(value_of(shallow, "grad_norm.clip_fraction"), 0.7);
  EXPECT_NEAR(value_of(shallow, "grad_norm.log10_clipped_over_clip"), std::log10(1.2), 1e-12);
  // Where the threshold sits against the first tenth of the steps (at least 5): 0.12, 0.15, 0.05, 0.05,
  // 0.05 against 0.1 -> median 0.05 -> log10(0.5).
  EXPECT_NEAR(value_of(shallow, "grad_norm.log10_early_over_clip"), std::log10(0.5), 1e-12);
  EXPECT_EQ(evidence_of(shallow, "grad_norm.log10_early_over_clip").at(0).last_step, 4);
  // Norms that start 20x the threshold and then shrink below it (an adaptive optimizer converging): the
  // clipped steps are cut shallowly, the start says how far below the norms the threshold was set.
  std::vector<double> shrinking(60, 0.11);
  for (std::size_t i = 0; i < 8; ++i) shrinking[i] = 2.0;
  const FeatureSet late = run_extractor({{kRecordsPort, records_of(gradient_rows(shrinking, 0.1))}});
  EXPECT_NEAR(value_of(late, "grad_norm.log10_early_over_clip"), std::log10(20.0), 1e-12);
  EXPECT_NEAR(value_of(late, "grad_norm.log10_clipped_over_clip"), std::log10(1.1), 1e-12);
  // clip_threshold null: clipping is off, nothing is clipped, and there is no threshold to compare with.
  const FeatureSet off = run_extractor({{kRecordsPort, records_of(gradient_rows(norms, nullptr))}});
  EXPECT_DOUBLE_EQ(value_of(off, "grad_norm.clip_fraction"), 0.0);
  EXPECT_FALSE(find(off, "grad_norm.log10_median_over_clip"));
  EXPECT_FALSE(find(off, "grad_norm.log10_clipped_over_clip"));
  EXPECT_FALSE(find(off, "grad_norm.log10_early_over_clip"));
  // The threshold only in the config.
  const FeatureSet from_config =
      run_extractor({{kRecordsPort, records_of(gradient_rows(norms, json(json::value_t::discarded)))},
                     {kConfigPort, config_of({{"clip_threshold", 0.1}, {"batch_size", 16}})}});
  EXPECT_DOUBLE_EQ(value_of(from_config, "grad_norm.clip_fraction"), 0.8);
  EXPECT_DOUBLE_EQ(value_of(from_config, "data.batch_size"), 16.0);
}

TEST(TrainingFeatures, FirstLastLayerRatioUsesWeightsInNetworkOrder) {
  std::vector<json> rows;
  for (int i = 0; i < 10; ++i) {
    json r = step_row(i, 2.3);
    r["grad_norm"] = 1.0;
    r["layer_grad_norms"] = {
        {"0.weight", 1e-6}, {"0.bias", 1.0}, {"2.weight", 1e-3}, {"10.weight", 1.0}, {"10.bias", 5.0}};
    rows.push_back(std::move(r));
  }
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "grad.log10_first_last_layer_ratio"), -6.0, 1e-12);
  const auto ev = evidence_of(set, "grad.log10_first_last_layer_ratio");
  ASSERT_EQ(ev.size(), 3u);
  EXPECT_EQ(ev[1].id, "0.weight");
  EXPECT_EQ(ev[2].id, "10.weight");
  EXPECT_DOUBLE_EQ(value_of(set, "grad.layer_norm_median", {{"layer", "2.weight"}}), 1e-3);
  EXPECT_FALSE(find(set, "grad.layer_norm_median", {{"layer", "0.bias"}}));
}

TEST(TrainingFeatures, DeadLayersAreThoseWithZeroGradientOnTheLateSteps) {
  // 20 steps: in the second half (steps 10-19) layer 0 gets exactly zero on 9 of 10 steps (dead), layer 2 on
  // 8 of 10 (alive: below the 90% share), layer 4 keeps a tiny but non-zero gradient (a saturated unit,
  // alive); the biases do not count when weights are logged, and the first half (all alive) does not either.
  std::vector<json> rows;
  for (int i = 0; i < 20; ++i) {
    json r = step_row(i, 2.3);
    r["grad_norm"] = 1.0;
    const bool late = i >= 10;
    r["layer_grad_norms"] = {{"0.weight", late && i != 15 ? 0.0 : 0.5},
                             {"0.bias", 0.0},
                             {"2.weight", late && i < 18 ? 0.0 : 0.5},
                             {"4.weight", late ? 1e-12 : 0.5}};
    rows.push_back(std::move(r));
  }
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "grad.dead_layer_fraction"), 1.0 / 3.0, 1e-12);
  const auto ev = evidence_of(set, "grad.dead_layer_fraction");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0].first_step, 10);
  EXPECT_EQ(ev[0].last_step, 19);
  EXPECT_EQ(ev[1].kind, "layer");
  EXPECT_EQ(ev[1].id, "0.weight");

  // Every layer dead: non-finite late values are skipped rather than counted as alive (2.weight is zero on 8
  // of its 8 finite late steps, 8 of 10 if the two "nan" steps counted).
  for (std::size_t i = 10; i < rows.size(); ++i)
    rows[i]["layer_grad_norms"] = {
        {"0.weight", 0.0}, {"2.weight", i == 12 || i == 13 ? json("nan") : json(0.0)}, {"4.weight", 0.0}};
  EXPECT_DOUBLE_EQ(value_of(run_extractor({{kRecordsPort, records_of(rows)}}), "grad.dead_layer_fraction"),
                   1.0);

  // Too few late rows to say: no feature.
  rows.resize(8);
  EXPECT_FALSE(find(run_extractor({{kRecordsPort, records_of(rows)}}), "grad.dead_layer_fraction"));
}

TEST(TrainingFeatures, LayerNamesSortNumericPartsAsNumbers) {
  using training_detail::layer_name_less;
  EXPECT_TRUE(layer_name_less("2.weight", "10.weight"));
  EXPECT_FALSE(layer_name_less("10.weight", "2.weight"));
  EXPECT_TRUE(layer_name_less("3.b1.weight", "3.c1.weight"));
  EXPECT_TRUE(layer_name_less("1.weight", "fc.weight"));
  EXPECT_TRUE(layer_name_less("3.weight", "3.weight.extra"));
  EXPECT_FALSE(layer_name_less("3.weight", "3.weight"));
}

TEST(TrainingFeatures, EpochLevelLogGivesOnlyLossFeatures) {
  const auto rows = read_jsonl(std::string(CANN_DEBUG_TEST_DATA_DIR) + "/features_training/epoch_log.jsonl");
  ASSERT_EQ(rows.size(), 12u);
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  // Edges of 1 row: 2.30 at epoch 0, 0.41 at epoch 11.
  EXPECT_DOUBLE_EQ(value_of(set, "loss.final_over_initial"), 0.41 / 2.30);
  EXPECT_DOUBLE_EQ(value_of(set, "data.steps_per_epoch"), 1.0);
  for (const auto& f : set.features)
    EXPECT_TRUE(f.name.rfind("loss.", 0) == 0 || f.name == "data.steps_per_epoch") << f.name;
}

TEST(TrainingFeatures, RowsOfOtherRanksAreIgnored) {
  std::vector<json> rows;
  for (int i = 0; i < 10; ++i) {
    json r0 = step_row(i, 2.0), r1 = step_row(i, 9.0);
    r0["rank"] = 0;
    r1["rank"] = 1;
    rows.push_back(r0);
    rows.push_back(r1);
  }
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.max_over_initial"), 1.0);
}

TEST(TrainingFeatures, NoInputGivesAnEmptyRunSet) {
  const FeatureSet set = run_extractor({});
  EXPECT_EQ(set.scope, "run");
  EXPECT_TRUE(set.features.empty());
}

}  // namespace
}  // namespace cann_debug::plugins

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;

// A console log (train_log records): the restart's repeated steps replace the ones the restart undid;
// validation rows are not steps; events become log.* features naming the step they hit.
TEST(TrainingFeatures, ConsoleLogSegmentsValidationRowsAndEvents) {
  std::vector<json> rows;
  for (int s = 1; s <= 6; ++s)
    rows.push_back({{"log_kind", "train"},
                    {"step", s},
                    {"loss", 10.0 - s},
                    {"segment", 0},
                    {"skipped_iterations", s == 2 ? 1 : 0}});
  rows.push_back({{"log_kind", "validation"}, {"step", 6}, {"val_loss", 1.0}, {"segment", 0}});
  rows.push_back({{"log_kind", "event"},
                  {"event", "device_error"},
                  {"component", "device"},
                  {"severity", "error"},
                  {"hardware", true},
                  {"step", 6}});
  rows.push_back({{"log_kind", "event"},
                  {"event", "restart"},
                  {"component", "software"},
                  {"severity", "warning"},
                  {"hardware", false},
                  {"step", 4}});
  for (int s = 4; s <= 8; ++s)
    rows.push_back({{"log_kind", "train"}, {"step", s}, {"loss", 20.0 - s}, {"segment", 1}});
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "log.restarts"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "log.hardware_events"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "log.error_events"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "log.skipped_iterations"), 1.0);
  const auto hw = find(set, "log.hardware_events");
  ASSERT_TRUE(hw && !hw->evidence.empty());
  EXPECT_EQ(hw->evidence[0].id, "device_error");
  EXPECT_EQ(hw->evidence[0].first_step, 6);
  // A plain step log says nothing about restarts or errors: absent, not zero.
  std::vector<json> plain;
  for (int s = 0; s < 10; ++s) plain.push_back({{"step", s}, {"loss", 1.0}});
  EXPECT_FALSE(find(run_extractor({{kRecordsPort, records_of(plain)}}), "log.restarts"));
}

TEST(TrainingFeatures, ARestartDropsTheStepsItUndid) {
  std::vector<training_detail::LogRow> rows;
  auto row = [&](std::int64_t step, std::int64_t segment) {
    training_detail::LogRow r;
    r.step = step;
    r.segment = segment;
    r.index = static_cast<std::int64_t>(rows.size());
    rows.push_back(r);
  };
  for (int s = 1; s <= 6; ++s) row(s, 0);
  for (int s = 4; s <= 7; ++s) row(s, 1);  // resumed from the checkpoint of step 3
  for (int s = 2; s <= 3; ++s) row(s, 2);  // and again, from step 1's
  const auto kept = training_detail::latest_segment_rows(rows);
  std::vector<std::int64_t> steps;
  for (const auto& r : kept) steps.push_back(r.step);
  EXPECT_EQ(steps, (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(kept[1].segment, 2);
}

}  // namespace
}  // namespace cann_debug::plugins
