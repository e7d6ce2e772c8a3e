// Tests of the large-model features of training_features: loss spikes (recovered, one-step, warm-up),
// late divergence, throughput drops, the loss scale and skipped iterations, hardware errors placed on
// the iteration they hit. The series are built so that each figure is known by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "series_math.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;

/// A smooth large-batch loss curve, 10.5 at the start falling to about 2.5, with a small alternating
/// ripple so that the step noise is not zero.
double curve(int i) {
  return 2.5 + 8.0 * std::exp(-i / 30.0) + (i % 2 == 0 ? 0.01 : -0.01);
}

json train_row(int step, double loss) {
  return {{"log_kind", "train"}, {"step", step}, {"loss", loss}};
}

std::vector<json> smooth_run(int steps) {
  std::vector<json> rows;
  for (int i = 1; i <= steps; ++i) rows.push_back(train_row(i, curve(i)));
  return rows;
}

bool has(const FeatureSet& set, const std::string& name) {
  return find(set, name).has_value();
}

TEST(AtScaleFeatures, TheSlidingRunningMedianIsTheMedianOfEveryWindow) {
  // Values with many ties (quantised) and runs, against the median of each window computed afresh.
  std::vector<double> v;
  unsigned x = 12345;
  for (int i = 0; i < 600; ++i) {
    x = x * 1103515245u + 12345u;
    v.push_back(static_cast<double>((x >> 16) % 7) + (i > 300 && i < 320 ? 10.0 : 0.0));
  }
  for (std::size_t hw : {std::size_t{0}, std::size_t{1}, std::size_t{2}, std::size_t{10}, std::size_t{299}}) {
    const std::vector<double> fast = training_detail::running_median(v, hw);
    ASSERT_EQ(fast.size(), v.size() - 2 * hw) << hw;
    for (std::size_t i = 0; i < fast.size(); ++i) {
      const auto first = v.begin() + static_cast<std::ptrdiff_t>(i);
      ASSERT_EQ(fast[i], training_detail::median(
                             std::vector<double>(first, first + static_cast<std::ptrdiff_t>(2 * hw + 1))))
          << "half width " << hw << " at " << i;
    }
  }
  EXPECT_TRUE(training_detail::running_median(v, 300).empty());
}

TEST(AtScaleFeatures, ASmoothRunHasNoSpikesAndNoDivergence) {
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(smooth_run(200))}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_max_height"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.minor_spikes"), 0.0);
  // A run still learning ends at its best level: nothing given back.
  EXPECT_LT(value_of(set, "loss.late_divergence_height"), 0.02);
  EXPECT_FALSE(has(set, "loss.warmup_spike_height"));
  EXPECT_FALSE(has(set, "loss.spike_start_step"));
}

TEST(AtScaleFeatures, ARecoveredSpikeIsMeasuredAndCutOutOfTheCurveFeatures) {
  std::vector<json> rows = smooth_run(200);
  // Iterations 120-127 jump 60% above the level and then the loss is back.
  for (int i = 120; i <= 127; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 1.6 * curve(i);
  const FeatureSet spiky = run_extractor({{kRecordsPort, records_of(rows)}});
  const FeatureSet smooth = run_extractor({{kRecordsPort, records_of(smooth_run(200))}});
  EXPECT_DOUBLE_EQ(value_of(spiky, "loss.spike_count"), 1.0);
  EXPECT_NEAR(value_of(spiky, "loss.spike_max_height"), 0.6, 0.02);
  EXPECT_DOUBLE_EQ(value_of(spiky, "loss.spike_start_step"), 120.0);
  EXPECT_DOUBLE_EQ(value_of(spiky, "loss.spike_recovered_step"), 128.0);
  EXPECT_DOUBLE_EQ(value_of(spiky, "loss.spike_max_steps"), 8.0);
  const EvidenceRef where = evidence_of(spiky, "loss.spike_count").at(0);
  EXPECT_EQ(where.first_step, 120);
  EXPECT_EQ(where.last_step, 128);
  // The curve features describe the run outside the spike: as if it had not happened (up to the few
  // rows fewer their windows see).
  for (const char* name : {"loss.peak_over_first", "loss.final_over_initial"})
    EXPECT_NEAR(value_of(spiky, name), value_of(smooth, name), 0.03 * value_of(smooth, name)) << name;
  EXPECT_NEAR(value_of(spiky, "loss.noise_over_first"), value_of(smooth, "loss.noise_over_first"),
              0.1 * value_of(smooth, "loss.noise_over_first"));
  // Eight elevated rows in a row would read as neighbouring batches alike.
  EXPECT_NEAR(value_of(spiky, "loss.residual_lag1_autocorr"), value_of(smooth, "loss.residual_lag1_autocorr"),
              0.05);
  EXPECT_NEAR(value_of(spiky, "loss.rebound_over_first"), value_of(smooth, "loss.rebound_over_first"), 0.01);
  EXPECT_LT(value_of(spiky, "loss.peak_over_first"), 1.0);
}

TEST(AtScaleFeatures, ASpikeTheRunCameBackFromWithinItsNoiseIsCut) {
  // A small batch's loss at a low level, with 20% noise from step to step; four corrupt batches at step
  // 120 throw it up tenfold, and the run settles 25% above where it was (inside its noise, not within 5%).
  auto run = [](bool spike) {
    std::vector<json> rows;
    unsigned x = 4242;
    auto uniform = [&x] {
      x = x * 1103515245u + 12345u;
      return static_cast<double>((x >> 8) & 0xffff) / 65536.0;
    };
    for (int i = 1; i <= 240; ++i) {
      const double z = (uniform() + uniform() + uniform() - 1.5) / 0.5;
      double level = 0.4 + 2.0 * std::exp(-i / 20.0);
      if (spike && i > 123) level *= 1.25;
      double loss = level * std::exp(0.2 * z);
      if (spike && i >= 120 && i < 124) loss = 10.0 * level;
      rows.push_back(train_row(i, loss));
    }
    return rows;
  };
  const FeatureSet spiky = run_extractor({{kRecordsPort, records_of(run(true))}});
  const FeatureSet calm = run_extractor({{kRecordsPort, records_of(run(false))}});
  EXPECT_DOUBLE_EQ(value_of(spiky, "loss.spike_count"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(spiky, "loss.spike_start_step"), 120.0);
  // Left in the curve, four elevated rows in a row read as neighbouring batches alike (lag-1 about 0.5).
  EXPECT_NEAR(value_of(spiky, "loss.residual_lag1_autocorr"), value_of(calm, "loss.residual_lag1_autocorr"),
              0.1);
}

TEST(AtScaleFeatures, AStepUpWhereTheEpochStartsAgainIsNoSpike) {
  // 40-step epochs; the loss jumps 60% and comes back at the start of every epoch after the first (a
  // stored order starting again) and at step 130, inside the fourth.
  std::vector<json> rows = smooth_run(200);
  for (json& r : rows) r["epoch"] = (r["step"].get<int>() - 1) / 40;
  for (int first : {41, 81, 121, 161, 130})
    for (int i = first; i < first + 6; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 1.6 * curve(i);
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_start_step"), 130.0);
  // Without epochs in the log all are spikes (too many to cut: the count says so).
  std::vector<json> no_epochs = rows;
  for (json& r : no_epochs) r.erase("epoch");
  EXPECT_DOUBLE_EQ(value_of(run_extractor({{kRecordsPort, records_of(no_epochs)}}), "loss.spike_count"), 5.0);
}

TEST(AtScaleFeatures, ANonFiniteLossAtAnEpochStartIsNoStoredOrdersStepUp) {
  // The stored order of the test above, whose step-up at step 81 is replaced by two overflowed steps
  // (NaN): no order's step-up is a NaN, so that spike stays, whatever the other epoch starts do.
  std::vector<json> rows = smooth_run(200);
  for (json& r : rows) r["epoch"] = (r["step"].get<int>() - 1) / 40;
  for (int first : {41, 121, 161, 130})
    for (int i = first; i < first + 6; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 1.6 * curve(i);
  rows[80]["loss"] = "NaN";
  rows[81]["loss"] = "NaN";
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 2.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_start_step"), 81.0);
}

TEST(AtScaleFeatures, ATransientThatFallsOnOneEpochStartIsASpike) {
  // A few corrupt batches at the start of the third epoch: the other epoch starts do not step up, so it
  // is no stored order starting again.
  std::vector<json> rows = smooth_run(200);
  for (json& r : rows) r["epoch"] = (r["step"].get<int>() - 1) / 40;
  for (int i = 81; i < 84; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 5.0 * curve(i);
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_start_step"), 81.0);
}

/// A small-batch run: at chance level (2.3, calm) for 40 steps, then learning down to about 0.5, with
/// minibatch noise proportional to the level (a log-normal factor of spread 0.15, one hard batch of 1.6x in
/// about every 25 steps).
std::vector<json> small_batch_run(int steps) {
  std::vector<json> rows;
  unsigned x = 777;
  auto uniform = [&x] {
    x = x * 1103515245u + 12345u;
    return static_cast<double>((x >> 8) & 0xffff) / 65536.0;
  };
  for (int i = 1; i <= steps; ++i) {
    const double level = i <= 40 ? 2.3 : 0.5 + 1.8 * std::exp(-(i - 40) / 60.0);
    const double spread = i <= 40 ? 0.005 : 0.15;
    // The sum of three uniforms: roughly normal, mean 1.5, sd 0.5.
    const double z = (uniform() + uniform() + uniform() - 1.5) / 0.5;
    const double hard = i > 40 && uniform() < 0.04 ? 1.6 : 1.0;
    rows.push_back(train_row(i, level * std::exp(spread * z) * hard));
  }
  return rows;
}

TEST(AtScaleFeatures, MinibatchNoiseProportionalToTheLevelIsNotASpike) {
  // The noise is measured relative to the level and near the candidate: the calm start does not make the
  // later noise of the same size look like spikes (it did with one absolute spread for the whole run).
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(small_batch_run(600))}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_max_height"), 0.0);
  // A real instability in the same run still is one: the loss triples for six steps and comes back.
  std::vector<json> rows = small_batch_run(600);
  for (int i = 400; i < 406; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 3.0 * 0.55;
  const FeatureSet spiky = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(spiky, "loss.spike_count"), 1.0);
  EXPECT_GT(value_of(spiky, "loss.spike_max_height"), 1.5);
  EXPECT_DOUBLE_EQ(value_of(spiky, "loss.spike_start_step"), 400.0);
}

TEST(AtScaleFeatures, AOneStepJumpIsAMinorSpikeNotASpike) {
  std::vector<json> rows = smooth_run(200);
  rows[119]["loss"] = 2.0 * curve(120);  // one hard batch
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.minor_spikes"), 1.0);
}

/// A classifier trained close to zero loss: 2.3 at the start, 0.02 from step 60 on, with a 10% ripple.
std::vector<json> near_zero_run(int steps) {
  std::vector<json> rows;
  for (int i = 1; i <= steps; ++i)
    rows.push_back(train_row(i, (0.02 + 2.28 * std::exp(-i / 8.0)) * (i % 2 == 0 ? 1.1 : 0.9)));
  return rows;
}

TEST(AtScaleFeatures, AJumpFromNearZeroBackAboveTheFirstLossIsASpike) {
  // Three corrupt batches at step 120 throw the loss from 0.02 to 20 nats, nine times the untrained
  // network's; the run settles at 0.06, three times the level it left but back under a tenth of its
  // first loss: it kept what it had learnt.
  std::vector<json> rows = near_zero_run(200);
  for (int i = 120; i <= 122; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 20.0;
  for (int i = 123; i <= 200; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 0.06 * (i % 2 ? 1.1 : 0.9);
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.minor_spikes"), 0.0);
  EXPECT_GT(value_of(set, "loss.spike_max_height"), 500.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_start_step"), 120.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_recovered_step"), 123.0);
  EXPECT_LT(value_of(set, "loss.late_divergence_height"), 0.5);
}

TEST(AtScaleFeatures, AJumpFromNearZeroThatStaysUnderTheFirstLossIsMinor) {
  // Near zero a few hard batches move the loss by many times its level (0.02 to 0.5) without coming back
  // up to the untrained network's loss: noise at that level, not a spike.
  std::vector<json> rows = near_zero_run(200);
  for (int i = 120; i <= 122; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 0.5;
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 0.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.minor_spikes"), 1.0);
}

TEST(AtScaleFeatures, AOneRowJumpOfAnIntervalAverageIsASpike) {
  // Rows ten iterations apart (Megatron's log interval): one elevated row is ten iterations of it.
  std::vector<json> rows;
  for (int i = 1; i <= 100; ++i) rows.push_back(train_row(10 * i, curve(i)));
  rows[59]["loss"] = 1.5 * curve(60);
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_start_step"), 600.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_recovered_step"), 610.0);
}

TEST(AtScaleFeatures, AWarmUpSpikeTheRunLearntAfterIsAnObservationOnly) {
  // The rate rises over 20 iterations; the loss jumps to 3.5x at iterations 3-12 and then learns.
  std::vector<json> rows = smooth_run(120);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i]["lr"] = 1e-4 * std::min(1.0, (i + 1) / 20.0);
  for (int i = 3; i <= 12; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 3.5 * curve(1);
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "loss.warmup_spike_height"), 3.5 * curve(1) / curve(1) - 1.0, 0.05);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 0.0);
  // Cut out: the curve's peak is its first loss, not the spike.
  EXPECT_LT(value_of(set, "loss.peak_over_first"), 1.05);
  EXPECT_DOUBLE_EQ(value_of(set, "lr.peak"), 1e-4);
}

TEST(AtScaleFeatures, AWarmUpJumpBackToChanceLevelIsNotCut) {
  // The loss jumps and comes back to its first level, but never learns: the jump stays in the curve.
  std::vector<json> rows;
  for (int i = 1; i <= 150; ++i) rows.push_back(train_row(i, i >= 2 && i <= 4 ? 30.0 : 2.3 + (i % 2) * 0.01));
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_GT(value_of(set, "loss.max_over_initial"), 10.0);
}

TEST(AtScaleFeatures, ALateRiseThatNeverComesBackIsALateDivergence) {
  std::vector<json> rows = smooth_run(200);
  for (int i = 140; i <= 200; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 2.0 * curve(i);
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  // The final level (2 x the curve near its end) over the level just before the rise.
  EXPECT_NEAR(value_of(set, "loss.late_divergence_height"), 2.0 * curve(190) / curve(138) - 1.0, 0.02);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.late_divergence_start_step"), 140.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.spike_count"), 0.0);
}

TEST(AtScaleFeatures, ASlowCreepUpFromTheBestLevelIsALateDivergence) {
  // Learns to its best at iteration 100, then creeps up 1% per iteration: no step is a spike.
  std::vector<json> rows;
  for (int i = 1; i <= 200; ++i) {
    const double level = i <= 100 ? 2.0 + 8.0 * (100 - i) / 100.0 : 2.0 * std::pow(1.01, i - 100);
    rows.push_back(train_row(i, level + (i % 2 == 0 ? 0.005 : -0.005)));
  }
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_GT(value_of(set, "loss.late_divergence_height"), 1.2);
  EXPECT_NEAR(value_of(set, "loss.late_divergence_start_step"), 100.0, 3.0);
}

TEST(AtScaleFeatures, ALateNaNCountsAsATenfoldDivergence) {
  std::vector<json> rows = smooth_run(200);
  rows[149]["loss"] = 1.8 * curve(150);
  for (int i = 151; i <= 200; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = "nan";
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.late_divergence_height"), 9.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.late_divergence_start_step"), 150.0);
}

TEST(AtScaleFeatures, ARunThatBlewUpInItsFirstFifthHasNoLateDivergence) {
  // A rate the run cannot take: thrown up a thousandfold at step 5, back near its level by step 12, and
  // non-finite from step 150 on. It was never stable, so the late NaN is the same instability.
  std::vector<json> rows = smooth_run(200);
  for (int i = 5; i <= 10; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = 1000.0 * curve(i);
  rows[149]["loss"] = 1.8 * curve(150);
  for (int i = 151; i <= 200; ++i) rows[static_cast<std::size_t>(i - 1)]["loss"] = "nan";
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss.late_divergence_height"), 0.0);
  EXPECT_FALSE(has(set, "loss.late_divergence_start_step"));
}

TEST(AtScaleFeatures, ASustainedSlowerStretchIsAThroughputDrop) {
  std::vector<json> rows = smooth_run(200);
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i]["iteration_time_ms"] = (i >= 120 && i < 160 ? 1500.0 : 1000.0) + static_cast<double>(i % 3);
  rows[0]["iteration_time_ms"] = 50000.0;  // the first iteration compiles
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "step_time.median_ms"), 1001.0, 1.0);
  EXPECT_NEAR(value_of(set, "step_time.slowdown"), 1501.0 / 1001.0, 0.02);
  const auto refs = evidence_of(set, "step_time.slowdown");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[1].kind, "window");
  // A window of eleven rows (ten seconds of iterations) is slow with six slow rows in it: it starts at step
  // 116 (the slow ones are 121-160) at the earliest and ends at 165 at the latest.
  EXPECT_GE(refs[1].first_step, 116);
  EXPECT_LE(refs[1].last_step, 165);
}

TEST(AtScaleFeatures, ASlowStretchOfMillisecondsIsTheSchedulersNotAThroughputDrop) {
  // 2 ms iterations, 40 of them at 4 ms (another process ran for a tenth of a second): a window of a
  // twentieth of the rows would read 2x; one of ten seconds of iterations does not fit twice in the run.
  std::vector<json> rows = smooth_run(800);
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i]["iteration_time_ms"] = i >= 400 && i < 440 ? 4.0 : 2.0;
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "step_time.median_ms"), 2.0);
  EXPECT_FALSE(has(set, "step_time.slowdown"));
  // Logged every 1000 iterations (a row stands for 2 s), the same run would be long enough to read.
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i]["step"] = 1000 * static_cast<int>(i + 1);
  EXPECT_TRUE(has(run_extractor({{kRecordsPort, records_of(rows)}}), "step_time.slowdown"));
}

TEST(AtScaleFeatures, OneSlowIntervalIsNotAThroughputDrop) {
  std::vector<json> rows = smooth_run(200);
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i]["iteration_time_ms"] = i == 100 ? 9000.0 : 1000.0;
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "step_time.slowdown"), 1.0);
}

TEST(AtScaleFeatures, TokensPerSecondStandInForTheIterationTime) {
  std::vector<json> rows = smooth_run(100);
  for (std::size_t i = 0; i < rows.size(); ++i)
    rows[i]["tokens_per_second"] = i >= 50 && i < 70 ? 500.0 : 1000.0;
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "step_time.slowdown"), 2.0, 1e-9);
  EXPECT_FALSE(has(set, "step_time.median_ms"));
}

TEST(AtScaleFeatures, TheLossScaleFloorAndTheSkippedIterations) {
  std::vector<json> rows;
  for (int i = 1; i <= 50; ++i) {
    json r = train_row(10 * i, curve(i));
    r["loss_scale"] = i < 30 ? 65536.0 : (i < 40 ? 1.0 : 2.0);
    r["skipped_iterations"] = i >= 30 && i < 40 ? 10 : 0;  // every iteration of those intervals
    rows.push_back(r);
  }
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "loss_scale.initial_log2"), 16.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss_scale.min_log2"), 0.0);
  EXPECT_EQ(evidence_of(set, "loss_scale.min_log2").at(0).first_step, 300);
  // 100 skipped of the 491 iterations from 10 to 500.
  EXPECT_NEAR(value_of(set, "log.skipped_iteration_fraction"), 100.0 / 491.0, 1e-12);
}

/// A per-iteration fp16 log: `calibration` skips from an initial scale of 2^32 (one halving per two,
/// hysteresis 2), then clean iterations but the `later` ones, which overflow too.
std::vector<json> scaler_run(int steps, int calibration, const std::vector<int>& later) {
  std::vector<json> rows;
  double scale = 4294967296.0;
  for (int i = 1; i <= steps; ++i) {
    json r = train_row(i, curve(i));
    const bool skip = i <= calibration || std::find(later.begin(), later.end(), i) != later.end();
    r["loss_scale"] = scale;
    r["skipped_iterations"] = skip ? 1 : 0;
    if (skip && i % 2 == 0) scale /= 2.0;
    rows.push_back(r);
  }
  return rows;
}

TEST(AtScaleFeatures, TheScalersSearchForItsLevelIsNotCountedAsSkips) {
  // 34 skips down from 2^32 in a 200-iteration run are 17% of it, the two later ones 1.2% of the rest.
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(scaler_run(200, 34, {90, 150}))}});
  EXPECT_NEAR(value_of(set, "log.skipped_iteration_fraction"), 2.0 / 166.0, 1e-12);
  EXPECT_EQ(evidence_of(set, "log.skipped_iteration_fraction").at(0).first_step, 90);
}

TEST(AtScaleFeatures, AScalerThatNeverFindsALevelCountsEverySkip) {
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(scaler_run(120, 120, {}))}});
  EXPECT_DOUBLE_EQ(value_of(set, "log.skipped_iteration_fraction"), 1.0);
}

TEST(AtScaleFeatures, OverflowEventsOfTheSearchAreNotCountedEither) {
  // DeepSpeed logs an OVERFLOW line per skipped step: five from the start, then three more.
  std::vector<json> rows = smooth_run(100);
  for (int step : {1, 2, 3, 4, 5, 40, 41, 77})
    rows.push_back(
        {{"log_kind", "event"}, {"event", "overflow_skip"}, {"severity", "warning"}, {"step", step}});
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "log.skipped_iteration_fraction"), 3.0 / 95.0, 1e-12);
  // The same three without a search before them: over all 100 iterations.
  std::vector<json> plain = smooth_run(100);
  for (int step : {40, 41, 77})
    plain.push_back(
        {{"log_kind", "event"}, {"event", "overflow_skip"}, {"severity", "warning"}, {"step", step}});
  EXPECT_NEAR(value_of(run_extractor({{kRecordsPort, records_of(plain)}}), "log.skipped_iteration_fraction"),
              3.0 / 100.0, 1e-12);
}

TEST(AtScaleFeatures, WithoutSkipCountersThereIsNoSkippedFraction) {
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(smooth_run(50))}});
  EXPECT_FALSE(has(set, "log.skipped_iteration_fraction"));
  EXPECT_FALSE(has(set, "loss_scale.min_log2"));
  EXPECT_FALSE(has(set, "step_time.slowdown"));
}

TEST(AtScaleFeatures, AKernelLogErrorIsPlacedOnTheIterationItHit) {
  std::vector<json> rows;
  for (int i = 1; i <= 50; ++i) {
    json r = train_row(i, curve(i));
    r["time"] = 1000.0 + i;  // one iteration a second
    rows.push_back(r);
  }
  // An Xid at t = 1030.5 s (no step: a kernel log line) and a corrected ECC warning.
  rows.push_back(
      {{"log_kind", "event"}, {"event", "xid"}, {"severity", "error"}, {"hardware", true}, {"time", 1030.5}});
  rows.push_back({{"log_kind", "event"},
                  {"event", "ecc_corrected"},
                  {"severity", "warning"},
                  {"hardware", true},
                  {"time", 1040.0}});
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_DOUBLE_EQ(value_of(set, "log.hardware_events"), 2.0);
  EXPECT_DOUBLE_EQ(value_of(set, "log.hardware_errors"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(set, "log.first_hardware_error_step"), 30.0);
  EXPECT_EQ(evidence_of(set, "log.hardware_errors").at(0).first_step, 30);
}

}  // namespace
}  // namespace cann_debug::plugins
