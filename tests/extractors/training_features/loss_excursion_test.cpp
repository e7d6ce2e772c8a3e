// Tests of loss.excursion_*: a loss held above its recent level for two to four rows and back, in noise
// sigmas. The runs are a level with log-normal noise of a known spread, so that each z-score is known roughly
// by hand: a rise r held two rows over noise sigma s reads about ln(1 + r) / s, held k rows sqrt(k / 2) times
// that.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "loss_excursion.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;

/// A run at a slowly falling level with log-normal noise of spread `spread` (a sum of three uniforms, so
/// roughly normal), steps 1..steps.
std::vector<json> noisy_run(int steps, double spread, unsigned seed = 4242) {
  std::vector<json> rows;
  unsigned x = seed;
  auto uniform = [&x] {
    x = x * 1103515245u + 12345u;
    return static_cast<double>((x >> 8) & 0xffff) / 65536.0;
  };
  for (int i = 1; i <= steps; ++i) {
    const double z = (uniform() + uniform() + uniform() - 1.5) / 0.5;
    const double level = 1.8 - 0.2 * i / steps;
    rows.push_back({{"step", i}, {"loss", level * std::exp(spread * z)}});
  }
  return rows;
}

void scale_loss(std::vector<json>& rows, int from_step, int to_step, double factor) {
  for (json& r : rows)
    if (r["step"].get<int>() >= from_step && r["step"].get<int>() < to_step)
      r["loss"] = r["loss"].get<double>() * factor;
}

/// The rows as the extractor's log rows (step and loss), for the excursion search itself.
std::vector<training_detail::LogRow> training_log_of(const std::vector<json>& rows) {
  std::vector<training_detail::LogRow> log;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    training_detail::LogRow r;
    r.index = static_cast<std::int64_t>(i);
    r.step = rows[i]["step"].get<std::int64_t>();
    r.loss = rows[i]["loss"].get<double>();
    log.push_back(r);
  }
  return log;
}

/// The excursion search over `log`, which has no epochs.
training_detail::ExcursionSearch excursions_of(const std::vector<training_detail::LogRow>& log) {
  return training_detail::search_loss_excursions(log, training_detail::EpochStartStepUps(log, std::nullopt));
}

FeatureSet features_of(const std::vector<json>& rows) {
  return run_extractor({{kRecordsPort, records_of(rows)}});
}

TEST(LossExcursion, NoiseAloneIsNoExcursion) {
  const FeatureSet set = features_of(noisy_run(400, 0.02));
  EXPECT_LT(value_of(set, "loss.excursion_zscore"), 3.5);
  EXPECT_FALSE(find(set, "loss.excursion_start_step"));
}

TEST(LossExcursion, OneHardBatchIsNoExcursion) {
  // A batch that lifts the loss by half for one step is a single-row jump, the noise of small batches.
  std::vector<json> rows = noisy_run(400, 0.02);
  for (int step : {100, 180, 260, 340}) scale_loss(rows, step, step + 1, 1.5);
  EXPECT_LT(value_of(features_of(rows), "loss.excursion_zscore"), 3.5);
}

TEST(LossExcursion, TwoRowsWellAboveTheNoiseAreOneAndWhereItIsIsReported) {
  // 20% up for three steps over a noise of 2%: ln(1.2) / 0.02 is about 9 sigmas on the lesser row.
  std::vector<json> rows = noisy_run(400, 0.02);
  scale_loss(rows, 250, 253, 1.2);
  const FeatureSet set = features_of(rows);
  EXPECT_GT(value_of(set, "loss.excursion_zscore"), 5.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.excursion_start_step"), 250.0);
  EXPECT_GE(value_of(set, "loss.excursion_end_step"), 252.0);
  EXPECT_LE(value_of(set, "loss.excursion_end_step"), 254.0);
  EXPECT_NEAR(value_of(set, "loss.excursion_height"), 0.2, 0.08);
  const EvidenceRef where = evidence_of(set, "loss.excursion_zscore").at(0);
  EXPECT_EQ(where.first_step, 250);
}

TEST(LossExcursion, TheSameRiseInNoisierRowsReadsFewerSigmas) {
  // The z-score is relative to the run's own noise: the same 20% over a noise of 8% is about 2 sigmas.
  std::vector<json> calm = noisy_run(400, 0.02), noisy = noisy_run(400, 0.08);
  scale_loss(calm, 250, 253, 1.25);
  scale_loss(noisy, 250, 253, 1.25);
  const double z_calm = value_of(features_of(calm), "loss.excursion_zscore");
  const double z_noisy = value_of(features_of(noisy), "loss.excursion_zscore");
  EXPECT_GT(z_calm, 5.0);
  EXPECT_LT(z_noisy, 3.5);
}

TEST(LossExcursion, ARiseHeldLongerCountsForMore) {
  // 25% over a noise of 4%: about 4 sigmas a row of the step noise the run reads (the noise of steps 298-301
  // takes half a sigma off the lesser row). Held two rows it is raised; held four, the same rise is as
  // unlikely for the noise as two rows at about sqrt(2) times that, past 5.
  std::vector<json> two = noisy_run(400, 0.04), four = noisy_run(400, 0.04);
  scale_loss(two, 298, 300, 1.25);
  scale_loss(four, 298, 302, 1.25);
  const double z_two = value_of(features_of(two), "loss.excursion_zscore");
  const FeatureSet set = features_of(four);
  const double z_four = value_of(set, "loss.excursion_zscore");
  EXPECT_GT(z_two, 3.0);
  EXPECT_LT(z_two, 5.0);
  EXPECT_GT(z_four, 5.0);
  EXPECT_GT(z_four, 1.2 * z_two) << z_two;
  EXPECT_DOUBLE_EQ(value_of(set, "loss.excursion_start_step"), 298.0);
  EXPECT_GE(value_of(set, "loss.excursion_end_step"), 302.0);
}

TEST(LossExcursion, TheCurveFeaturesLeaveItsRowsOut) {
  // A freshly drawn order: neighbouring batches are independent. Four corrupt batches held up in a row, each
  // under the spike test's five sigmas, made the detrended loss correlate with its neighbour, the signature
  // of a stored order; the curve features read the run without them, as they read it without a spike.
  const std::vector<json> clean = noisy_run(400, 0.05);
  std::vector<json> held = clean;
  scale_loss(held, 298, 302, 1.25);
  const FeatureSet set = features_of(held);
  ASSERT_GT(value_of(set, "loss.excursion_zscore"), training_detail::kCutExcursionZscore);
  ASSERT_DOUBLE_EQ(value_of(set, "loss.spike_count") + value_of(set, "loss.minor_spikes"), 0.0);
  EXPECT_NEAR(value_of(set, "loss.residual_lag1_autocorr"),
              value_of(features_of(clean), "loss.residual_lag1_autocorr"), 0.03);
}

TEST(LossExcursion, IsCutAsOneMoreSpikeInOrderUnlessWeakOrInsideOne) {
  using training_detail::LossExcursion;
  using training_detail::LossSpike;
  LossSpike early, late;
  early.start = 10, early.end = 14, early.recovered = true;
  late.start = 90, late.end = 95, late.recovered = true;
  LossExcursion e;
  e.start = 50, e.peak = 51, e.back = 53, e.zscore = 6.0, e.height = 0.3, e.level = 1.0, e.back_under = 1.05;
  const std::vector<LossSpike> cut = training_detail::spikes_and_excursion({early, late}, e);
  ASSERT_EQ(cut.size(), 3u);
  EXPECT_EQ(cut[1].start, 50u);
  EXPECT_EQ(cut[1].end, 53u);
  EXPECT_TRUE(cut[1].recovered);
  EXPECT_DOUBLE_EQ(cut[1].back, 1.05);
  // Under the threshold it is the noise's; inside a spike it is that spike, already cut.
  e.zscore = training_detail::kCutExcursionZscore - 0.1;
  EXPECT_EQ(training_detail::spikes_and_excursion({early, late}, e).size(), 2u);
  e.zscore = 6.0, e.start = 92, e.back = 97;
  EXPECT_EQ(training_detail::spikes_and_excursion({early, late}, e).size(), 2u);
  EXPECT_EQ(training_detail::spikes_and_excursion({early, late}, std::nullopt).size(), 2u);
  // One of several: the crests of an oscillating loss, the curve's own shape.
  e.start = 50, e.back = 53, e.stands_alone = false;
  EXPECT_EQ(training_detail::spikes_and_excursion({early, late}, e).size(), 2u);
}

TEST(LossExcursion, OneOfSeveralDoesNotStandAlone) {
  std::vector<json> rows = noisy_run(400, 0.02);
  scale_loss(rows, 150, 153, 1.3);
  const auto alone = excursions_of(training_log_of(rows)).largest;
  ASSERT_TRUE(alone);
  EXPECT_TRUE(alone->stands_alone);
  // A second, lower one elsewhere: the largest is still the first, no longer alone.
  scale_loss(rows, 300, 303, 1.2);
  const auto two = excursions_of(training_log_of(rows)).largest;
  ASSERT_TRUE(two);
  EXPECT_EQ(two->start, alone->start);
  EXPECT_FALSE(two->stands_alone);
}

TEST(LossExcursion, ARiseItNeverCameBackFromIsNoExcursion) {
  // A level shift (a divergence) is the late-divergence feature's; an excursion is a transient.
  std::vector<json> rows = noisy_run(400, 0.02);
  scale_loss(rows, 250, 401, 1.3);
  EXPECT_DOUBLE_EQ(value_of(features_of(rows), "loss.excursion_zscore"), 0.0);
}

TEST(LossExcursion, ARiseUnderTenPercentIsNoExcursionWhateverTheNoise) {
  // A plateau whose loss hardly moves: 8% up for three steps is many sigmas but not a rise worth the name.
  std::vector<json> rows = noisy_run(400, 0.002);
  scale_loss(rows, 250, 253, 1.08);
  EXPECT_DOUBLE_EQ(value_of(features_of(rows), "loss.excursion_zscore"), 0.0);
}

TEST(LossExcursion, TheWarmUpIsLeftOut) {
  // The learning rate rises over the first 50 steps; a rise there is the warm-up's.
  std::vector<json> rows = noisy_run(400, 0.02);
  for (json& r : rows) r["lr"] = 1e-3 * std::min(1.0, r["step"].get<int>() / 50.0);
  scale_loss(rows, 30, 33, 1.3);
  EXPECT_DOUBLE_EQ(value_of(features_of(rows), "loss.excursion_zscore"), 0.0);
  scale_loss(rows, 150, 153, 1.3);
  EXPECT_DOUBLE_EQ(value_of(features_of(rows), "loss.excursion_start_step"), 150.0);
}

TEST(LossExcursion, AStoredOrdersStepUpAtEveryEpochStartIsNoExcursionButALoneOneIs) {
  // Epochs of 40 steps. The loss steps up by 30% for three steps at every epoch start: a stored order
  // starting again, the epoch symptoms' to read.
  std::vector<json> rows = noisy_run(400, 0.02);
  for (json& r : rows) r["epoch"] = (r["step"].get<int>() - 1) / 40;
  std::vector<json> stored = rows;
  for (int start = 41; start <= 361; start += 40) scale_loss(stored, start, start + 3, 1.3);
  EXPECT_LT(value_of(features_of(stored), "loss.excursion_zscore"), 3.5);
  // Three corrupt batches that fall on one epoch start alone are an excursion.
  std::vector<json> lone = rows;
  scale_loss(lone, 201, 204, 1.3);
  EXPECT_DOUBLE_EQ(value_of(features_of(lone), "loss.excursion_start_step"), 201.0);
}

TEST(LossExcursion, FromNearZeroItCountsOnlyWhenThrownBackToTheFirstLossAndBackUnderATenth) {
  // A classifier trained down to 0.01 nats from a first loss of 2.3: its loss moves by several times its
  // level from batch to batch, and a rise that stays under the first loss is no excursion.
  std::vector<json> rows = noisy_run(400, 0.02);
  for (json& r : rows)
    if (r["step"].get<int>() > 20) r["loss"] = 0.01 * r["loss"].get<double>();
  rows[0]["loss"] = 2.3;
  std::vector<json> small = rows;
  scale_loss(small, 250, 253, 20.0);  // 0.2-0.35 nats: under the first loss
  EXPECT_DOUBLE_EQ(value_of(features_of(small), "loss.excursion_zscore"), 0.0);
  // Thrown up to the first loss and beyond, it settles at 0.05, five times the level it left but under a
  // tenth of the first loss: it came back, as the spike test has it.
  std::vector<json> thrown = rows;
  scale_loss(thrown, 250, 253, 400.0);
  scale_loss(thrown, 253, 401, 5.0);
  const FeatureSet set = features_of(thrown);
  EXPECT_GT(value_of(set, "loss.excursion_zscore"), 5.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.excursion_start_step"), 250.0);
  EXPECT_DOUBLE_EQ(value_of(set, "loss.excursion_end_step"), 253.0);
}

TEST(LossExcursion, ALossThatIsNotPositiveHasNoExcursionFeature) {
  // A negative log-likelihood of a density can go below zero: no level to rise from in ratio.
  std::vector<json> rows = noisy_run(400, 0.02);
  rows[300]["loss"] = -0.5;
  EXPECT_FALSE(find(features_of(rows), "loss.excursion_zscore"));
}

TEST(LossExcursion, FindsTheLargestOfSeveral) {
  std::vector<json> rows = noisy_run(400, 0.02);
  scale_loss(rows, 150, 153, 1.15);
  scale_loss(rows, 300, 303, 1.5);
  const std::vector<training_detail::LogRow> log = training_log_of(rows);
  const auto e = excursions_of(log).largest;
  ASSERT_TRUE(e);
  EXPECT_EQ(log[e->start].step, 300);
  EXPECT_NEAR(e->height, 0.5, 0.1);
}

}  // namespace
}  // namespace cann_debug::plugins
