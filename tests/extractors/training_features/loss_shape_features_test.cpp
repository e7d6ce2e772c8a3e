// Loss-shape features on series whose shape is known: rebound and peak against the first loss, the noise
// against it, and the correlations of neighbouring batches and of batches one epoch apart.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <random>

#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;

json row(std::int64_t step, double loss, std::int64_t epoch = 0) {
  return {{"step", step}, {"time", 1000.0 + static_cast<double>(step)}, {"epoch", epoch}, {"loss", loss}};
}

/// Exponential decay from 2.3 towards 0.3 plus independent noise of standard deviation `sigma`.
std::vector<json> decaying(int n, double sigma, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<json> rows;
  for (int i = 0; i < n; ++i)
    rows.push_back(row(i, 0.3 + 2.0 * std::exp(-i / 30.0) + (i ? noise(gen) : 0.0)));
  return rows;
}

TEST(LossShapeFeatures, AHealthyCurveHoldsItsBestAndHasIndependentBatches) {
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(decaying(200, 0.02, 1))}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.first"), 2.3);
  EXPECT_LE(value_of(set, "loss.peak_over_first"), 1.0);
  EXPECT_LT(std::fabs(value_of(set, "loss.rebound_over_first")), 0.02);
  EXPECT_NEAR(value_of(set, "loss.noise_over_first"), 0.02 / 2.3, 0.005);
  EXPECT_LT(std::fabs(value_of(set, "loss.residual_lag1_autocorr")), 0.2);
}

TEST(LossShapeFeatures, ALossThatClimbsBackReboundsAndPeaks) {
  // Falls to 0.5 by step 60, then climbs to 3.0 (above the start) and stays there.
  std::vector<json> rows;
  for (int i = 0; i < 200; ++i)
    rows.push_back(row(i, i < 60 ? 2.3 - 1.8 * i / 60.0 : std::min(3.0, 0.5 + 0.05 * (i - 60))));
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "loss.rebound_over_first"), (3.0 - 0.5) / 2.3, 0.05);
  EXPECT_NEAR(value_of(set, "loss.peak_over_first"), 3.0 / 2.3, 0.01);
}

// 150 steps of a loss settling from 1.0 to 0.6, with Gaussian step noise of `spread` times that level (seed
// 7; none on the first step) added to `shape(step, level)`.
std::vector<json> settling_run(double spread, const std::function<double(int, double)>& shape) {
  std::mt19937 gen(7);
  std::normal_distribution<double> unit(0.0, 1.0);
  std::vector<json> rows;
  for (int i = 0; i < 150; ++i) {
    const double level = 0.6 + 0.4 * std::exp(-i / 20.0);
    const double noise = spread * level * unit(gen);
    rows.push_back(row(i, shape(i, level) + (i ? noise : 0.0)));
  }
  return rows;
}

double holds(int /*step*/, double level) {
  return level;
}

// A squared error's per-sample spread is of the order of the loss itself, so a batch of 16 leaves step noise
// of a quarter of the level: the lowest of 150 running medians of 7 steps lies well below the level the
// run holds. That is noise, not lost progress; the same noise on a loss that really climbs back is still a
// rebound.
TEST(LossShapeFeatures, TheStepNoiseAloneIsNoRebound) {
  const FeatureSet noisy = run_extractor({{kRecordsPort, records_of(settling_run(0.25, holds))}});
  EXPECT_LT(value_of(noisy, "loss.rebound_over_first"), 0.0);
  EXPECT_GT(value_of(noisy, "loss.noise_over_first"), 0.1);  // as noisy as a tiny batch of a classifier
  // Climbing back by 0.6 of the first loss: above the graph's rebounded threshold (0.1) after the margin.
  const auto climbs = [](int i, double level) { return i < 75 ? level : level + 0.6 * (i - 75) / 75.0; };
  const FeatureSet lost = run_extractor({{kRecordsPort, records_of(settling_run(0.25, climbs))}});
  EXPECT_GT(value_of(lost, "loss.rebound_over_first"), 0.1);
}

// The same noise at a batch of 16 (sqrt(2/16) of the level) is no late divergence either: the creep up from
// the lowest smoothed level counts beyond the noise margin, while a loss that really doubles does.
TEST(LossShapeFeatures, TheStepNoiseAloneIsNoLateCreep) {
  EXPECT_LT(value_of(run_extractor({{kRecordsPort, records_of(settling_run(0.35, holds))}}),
                     "loss.late_divergence_height"),
            0.1);
  const auto doubles = [](int i, double level) {
    return i < 75 ? level : level * (1.0 + 1.5 * (i - 75) / 75.0);
  };
  EXPECT_GT(value_of(run_extractor({{kRecordsPort, records_of(settling_run(0.35, doubles))}}),
                     "loss.late_divergence_height"),
            0.5);
}

TEST(LossShapeFeatures, ALossThrownUpAndThenUnderflowingToZeroIsABlowUp) {
  // A rate far too high: the loss jumps from 2.1 to 1.5e4 on the second step, then mostly sits at exactly
  // zero (saturated logits) with isolated large values. The smoothed peak sees the zeros only.
  std::vector<json> rows;
  for (int i = 0; i < 200; ++i)
    rows.push_back(row(i, i == 0 ? 2.1 : i == 1 ? 1.5e4 : (i % 17 == 0 ? 40.0 : 0.0)));
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "loss.log10_max_over_first"), std::log10(1.5e4 / 2.1), 1e-9);
  EXPECT_LT(value_of(set, "loss.peak_over_first"), 1.0);
  // A healthy curve never goes above its first loss.
  const FeatureSet healthy = run_extractor({{kRecordsPort, records_of(decaying(200, 0.02, 1))}});
  EXPECT_LT(value_of(healthy, "loss.log10_max_over_first"), 0.05);
}

TEST(LossShapeFeatures, BlocksOfSimilarBatchesCorrelateWithTheirNeighbours) {
  // Batches in runs of 6 from the same class: each block adds its own offset to the trend.
  std::mt19937 gen(3);
  std::normal_distribution<double> block(0.0, 0.2), noise(0.0, 0.02);
  std::vector<json> rows;
  double offset = 0.0;
  for (int i = 0; i < 240; ++i) {
    if (i % 6 == 0) offset = block(gen);
    rows.push_back(row(i, 0.3 + 2.0 * std::exp(-i / 30.0) + offset + noise(gen)));
  }
  const FeatureSet ordered = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_GT(value_of(ordered, "loss.residual_lag1_autocorr"), 0.4);
}

TEST(LossShapeFeatures, TheSameBatchesOneEpochLaterCorrelateWithTwoEpochs) {
  // 2.2 epochs of 90 steps; each position of the epoch has its own batch difficulty, repeated every epoch.
  std::mt19937 gen(5);
  std::normal_distribution<double> difficulty(0.0, 0.1), noise(0.0, 0.01);
  std::vector<double> per_position(90);
  for (double& d : per_position) d = difficulty(gen);
  std::vector<json> rows, fresh;
  for (int i = 0; i < 200; ++i) {
    const double trend = 0.5 + 1.8 * std::exp(-i / 40.0);
    rows.push_back(row(i, trend + per_position[static_cast<std::size_t>(i % 90)] + noise(gen), i / 90));
    fresh.push_back(row(i, trend + difficulty(gen) + noise(gen), i / 90));
  }
  const FeatureSet reused = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_GT(value_of(reused, "loss.epoch_lag_residual_autocorr"), 0.7);
  EXPECT_GT(value_of(reused, "loss.epoch_lag_zscore"), 4.0);
  const FeatureSet shuffled = run_extractor({{kRecordsPort, records_of(fresh)}});
  EXPECT_LT(std::fabs(value_of(shuffled, "loss.epoch_lag_residual_autocorr")), 0.3);
  EXPECT_LT(value_of(shuffled, "loss.epoch_lag_zscore"), 3.0);
}

TEST(LossShapeFeatures, TwoOutlyingBatchesOneEpochApartAreNoRepetition) {
  // A converged run in a fresh shuffle: tiny independent residuals, and five batches holding a rare hard
  // example 25x above the rest (too many to be cut as spikes), two of which happen to fall exactly one
  // epoch (60 steps) apart. The values correlate at the epoch lag through that one pair alone (about
  // 0.3); their ranks do not.
  std::mt19937 gen(7);
  std::normal_distribution<double> noise(0.0, 1e-5);
  std::vector<json> rows;
  for (int i = 0; i < 180; ++i) {
    const bool holds_hard_example = i == 40 || i == 70 || i == 95 || i == 130 || i == 165;
    const double hard = holds_hard_example ? 2.5e-3 : 0.0;
    rows.push_back(row(i, (i < 20 ? 2.0 * std::exp(-i / 4.0) : 1e-4) + noise(gen) + hard, i / 60));
  }
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_LT(std::fabs(value_of(set, "loss.epoch_lag_residual_autocorr")), 0.15);
  EXPECT_LT(value_of(set, "loss.epoch_lag_zscore"), 3.0);
}

// `epochs` epochs of 40 steps in a reused order: each position of the epoch has its own kind of batch (a
// standard normal draw, the same every epoch). `fill(step, kind, noise)` makes the row of a step, `noise()`
// a standard normal draw.
template <class Fill>
std::vector<json> reused_order_rows(int epochs, unsigned seed, Fill fill) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> kind(40);
  for (double& k : kind) k = normal(gen);
  const auto noise = [&] { return normal(gen); };
  std::vector<json> rows;
  for (int i = 0; i < 40 * epochs; ++i)
    rows.push_back(fill(i, kind[static_cast<std::size_t>(i % 40)], noise));
  return rows;
}

TEST(LossShapeFeatures, TheGradientNormOfTheSameBatchesIsASecondLook) {
  // 3 epochs of 40 steps in a reused order: each position's batch has its own difficulty, which shows
  // weakly in the loss and clearly in the gradient norm. The two epoch-lag tests combine as Stouffer's.
  std::vector<json> rows = reused_order_rows(3, 11, [](int i, double d, const auto& noise) {
    json r = row(i, 0.5 + 1.5 * std::exp(-i / 40.0) + 0.01 * (0.3 * d + noise()), i / 40);
    r["grad_norm"] = std::exp(0.2 * d + 0.05 * noise());
    return r;
  });
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  const double loss_z = value_of(set, "loss.epoch_lag_zscore");
  const double grad_z = value_of(set, "grad_norm.epoch_lag_zscore");
  EXPECT_GT(grad_z, 4.0);
  EXPECT_GT(grad_z, loss_z);
  EXPECT_NEAR(value_of(set, "data.epoch_repeat_zscore"), (loss_z + grad_z) / std::sqrt(2.0), 1e-12);
  // Without gradient norms the combined score is the loss test alone.
  for (json& r : rows) r.erase("grad_norm");
  const FeatureSet loss_only = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_FALSE(find(loss_only, "grad_norm.epoch_lag_zscore"));
  EXPECT_DOUBLE_EQ(value_of(loss_only, "data.epoch_repeat_zscore"),
                   value_of(loss_only, "loss.epoch_lag_zscore"));
}

TEST(LossShapeFeatures, TheOutputBiasOfTheSameClassMixIsAThirdLook) {
  // 4 epochs of 40 steps behind a shuffle buffer: each position of the epoch draws from its own few classes,
  // which barely moves the loss or the gradient norm but pulls the output layer's bias the same way at the
  // same position every epoch. The position tests of the three series combine as Stouffer's.
  std::vector<json> rows = reused_order_rows(4, 5, [](int i, double m, const auto& noise) {
    json r = row(i, 0.5 + 1.5 * std::exp(-i / 40.0) + 0.02 * noise(), i / 40);
    r["grad_norm"] = std::exp(0.1 * noise());
    r["layer_grad_norms"] = {{"embed.weight", 0.3},
                             {"embed.bias", 0.1},
                             {"head.weight", 0.8},
                             {"head.bias", 0.2 * std::exp(0.5 * m + 0.1 * noise())}};
    return r;
  });
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  const double loss_z = value_of(set, "loss.epoch_position_zscore");
  const double grad_z = value_of(set, "grad_norm.epoch_position_zscore");
  const double bias_z = value_of(set, "grad.output_bias_epoch_position_zscore");
  EXPECT_LT(loss_z, 3.0);
  EXPECT_LT(grad_z, 3.0);
  EXPECT_GT(bias_z, 8.0);
  EXPECT_NEAR(value_of(set, "data.epoch_position_zscore"), (loss_z + grad_z + bias_z) / std::sqrt(3.0),
              1e-12);
  const auto refs = evidence_of(set, "grad.output_bias_epoch_position_zscore");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[1].id, "head.bias");
  // Another module's bias says nothing of the class mix: without the head's bias only two tests count.
  for (json& r : rows) r["layer_grad_norms"].erase("head.bias");
  const FeatureSet headless = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_FALSE(find(headless, "grad.output_bias_epoch_position_zscore"));
  EXPECT_NEAR(value_of(headless, "data.epoch_position_zscore"),
              (value_of(headless, "loss.epoch_position_zscore") +
               value_of(headless, "grad_norm.epoch_position_zscore")) /
                  std::sqrt(2.0),
              1e-12);
}

TEST(LossShapeFeatures, TooFewStepsGiveNoShapeFeatures) {
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(decaying(15, 0.02, 2))}});
  EXPECT_FALSE(find(set, "loss.rebound_over_first"));
  EXPECT_FALSE(find(set, "loss.residual_lag1_autocorr"));
}

}  // namespace
}  // namespace cann_debug::plugins
