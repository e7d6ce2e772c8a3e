// The position-in-epoch test (epoch_position.hpp): an order that is the same every epoch gives each position
// its own kind of batch, which an analysis of variance by position finds even where no single lag stands out;
// a fresh shuffle, heavy-tailed batches and a steep learning curve do not.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "epoch_position.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;
using training_detail::epoch_position_test;
using training_detail::f_to_zscore;

TEST(EpochPosition, FReadsAsTheNormalDeviateOfItsUpperTail) {
  // Upper quantiles of F (scipy.stats.f.isf) against the normal deviates of the same tail probability.
  EXPECT_NEAR(f_to_zscore(3.29587, 10, 100), 3.0902, 0.05);  // p = 1e-3
  EXPECT_NEAR(f_to_zscore(2.64097, 45, 250), 4.7534, 0.1);   // p = 1e-6
  EXPECT_NEAR(f_to_zscore(1.0, 20, 1000), 0.0, 0.15);        // an F of 1 is what no effect gives
  EXPECT_LT(f_to_zscore(0.5, 20, 1000), -1.5);               // less spread between positions than within
}

/// ln(loss) of `epochs` epochs of `period` steps: a learning curve, a share `effect` that depends on the
/// position in the epoch (`cycles` class blocks taking turns), and batch noise of `noise`; with `reshuffled`,
/// each step's block is drawn afresh instead, as a fresh shuffle would mix them.
std::vector<double> log_loss(std::size_t period, std::size_t epochs, double effect, std::size_t cycles,
                             double noise, bool reshuffled, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> batch(0.0, noise);
  std::uniform_real_distribution<double> phase(0.0, 1.0);
  std::vector<double> v;
  for (std::size_t i = 0; i < period * epochs; ++i) {
    const double at = reshuffled ? phase(gen) : static_cast<double>(i % period) / static_cast<double>(period);
    const double kind = std::sin(2.0 * std::numbers::pi * static_cast<double>(cycles) * at);
    v.push_back(std::log(0.3 + 2.0 * std::exp(-static_cast<double>(i) / 60.0)) + effect * kind + batch(gen));
  }
  return v;
}

TEST(EpochPosition, AStoredOrderBehindAShuffleBufferGivesEachPositionItsKind) {
  // Four class blocks per 46-step epoch, the block's kind worth 10% of the loss, as much as the batch noise.
  const auto test = epoch_position_test(log_loss(46, 10, 0.1, 4, 0.1, false, 1), 46);
  ASSERT_TRUE(test);
  EXPECT_EQ(test->df_between, 44u);  // 46 positions, less the line along the epoch
  EXPECT_GT(test->zscore, 8.0);
}

TEST(EpochPosition, AFreshShuffleGivesEveryPositionTheSameMix) {
  double highest = -1e9;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto test = epoch_position_test(log_loss(46, 7, 0.1, 4, 0.1, true, seed), 46);
    ASSERT_TRUE(test);
    highest = std::max(highest, test->zscore);
  }
  EXPECT_LT(highest, 3.5);
}

// A fresh shuffle over a hundred epochs of a network that memorises: drawn without replacement, the batches
// late in an epoch hold samples seen longer ago, so the loss rises along the epoch and drops where the next
// one starts (here 6% over a 19-step epoch whose first start is at step 7). That straight line is no
// stored order; the test measures what is left once it is taken out.
TEST(EpochPosition, TheRiseAlongAnEpochOfAFreshShuffleIsNoPositionEffect) {
  constexpr std::size_t kPeriod = 19, kFirstStart = 7;
  std::vector<double> v = log_loss(kPeriod, 100, 0.1, 3, 0.05, true, 5);
  for (std::size_t i = 0; i < v.size(); ++i)
    v[i] += 0.003 * static_cast<double>((i + kPeriod - kFirstStart) % kPeriod);
  const auto test = epoch_position_test(v, kPeriod, kFirstStart);
  ASSERT_TRUE(test);
  EXPECT_LT(test->zscore, 3.5);
  EXPECT_NEAR(test->recency_slope, 0.003, 0.001);
  // Counted from the wrong step the line breaks in the middle of the epoch, and a sawtooth stays behind.
  EXPECT_GT(epoch_position_test(v, kPeriod, 0)->zscore, 4.0);
  // A stored order on top of the same line is still found.
  std::vector<double> stored = log_loss(kPeriod, 100, 0.1, 3, 0.05, false, 5);
  for (std::size_t i = 0; i < stored.size(); ++i)
    stored[i] += 0.003 * static_cast<double>((i + kPeriod - kFirstStart) % kPeriod);
  EXPECT_GT(epoch_position_test(stored, kPeriod, kFirstStart)->zscore, 8.0);
}

TEST(EpochPosition, RareHardBatchesInAFreshShuffleAreNoPositionEffect) {
  // A converged run: tiny residuals and one batch in thirty holding a hard example 25x above the rest.
  std::mt19937 gen(7);
  std::normal_distribution<double> noise(0.0, 0.02);
  std::bernoulli_distribution hard(1.0 / 30.0);
  std::vector<double> v;
  for (int i = 0; i < 400; ++i) v.push_back(std::log(1e-3 * (hard(gen) ? 25.0 : 1.0)) + noise(gen));
  const auto test = epoch_position_test(v, 40);
  ASSERT_TRUE(test);
  EXPECT_LT(test->zscore, 4.0);
}

TEST(EpochPosition, NeedsTwoEpochsOfResiduals) {
  // 2.5 epochs of steps leave 1.5 epochs of residuals around the moving mean over one epoch.
  EXPECT_FALSE(epoch_position_test(log_loss(40, 2, 0.05, 4, 0.1, false, 1), 40));
  EXPECT_FALSE(epoch_position_test(std::vector<double>(100, 1.0), 10));  // constant: nothing to test
  EXPECT_FALSE(epoch_position_test(log_loss(40, 5, 0.05, 4, 0.1, false, 1), 1));
  EXPECT_TRUE(epoch_position_test(log_loss(40, 3, 0.05, 4, 0.1, false, 1), 40));
}

/// ln(loss) of a permutation drawn once and reused: each position holds its own batch of random samples, of
/// a random difficulty (independent from one position to the next) that comes back every epoch.
std::vector<double> reused_permutation_loss(std::size_t period, std::size_t epochs, double spread,
                                            double noise, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> difficulty(0.0, spread), batch(0.0, noise);
  std::vector<double> of_position(period);
  for (double& d : of_position) d = difficulty(gen);
  std::vector<double> v;
  for (std::size_t i = 0; i < period * epochs; ++i)
    v.push_back(std::log(0.3 + 2.0 * std::exp(-static_cast<double>(i) / 60.0)) + of_position[i % period] +
                batch(gen));
  return v;
}

// Both a reused permutation and class blocks give each position its kind; what each position holds differs:
// batches of random samples have independent kinds (a white profile), blocks of a class hold their kind
// over neighbouring positions (a smooth one).
TEST(EpochPosition, TheProfileOfAReusedPermutationIsWhiteAndOfClassBlocksSmooth) {
  double reused_highest = -1e9;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto reused = epoch_position_test(reused_permutation_loss(46, 8, 0.2, 0.05, seed), 46);
    ASSERT_TRUE(reused && reused->profile_lag1_zscore);
    EXPECT_GT(reused->zscore, 8.0);  // as strong a position effect as a stored order's
    reused_highest = std::max(reused_highest, *reused->profile_lag1_zscore);
  }
  EXPECT_LT(reused_highest, 3.0);
  const auto blocks = epoch_position_test(log_loss(46, 8, 0.2, 4, 0.05, false, 1), 46);
  ASSERT_TRUE(blocks && blocks->profile_lag1_zscore);
  EXPECT_GT(blocks->zscore, 8.0);
  EXPECT_GT(*blocks->profile_lag1_zscore, 5.0);
  // Too few positions for a profile: no reading.
  const auto short_epoch = epoch_position_test(log_loss(6, 20, 0.2, 1, 0.05, false, 1), 6);
  ASSERT_TRUE(short_epoch);
  EXPECT_FALSE(short_epoch->profile_lag1_zscore);
}

json step_row(std::int64_t step, std::int64_t epoch, double loss, double grad_norm) {
  return {{"step", step},
          {"time", 1000.0 + static_cast<double>(step)},
          {"epoch", epoch},
          {"loss", loss},
          {"grad_norm", grad_norm}};
}

TEST(EpochPosition, TheExtractorCombinesTheLossAndTheGradientNorm) {
  const std::vector<double> loss = log_loss(30, 6, 0.1, 3, 0.1, false, 3);
  const std::vector<double> grad = log_loss(30, 6, 0.2, 3, 0.1, false, 4);
  std::vector<json> rows;
  for (std::size_t i = 0; i < loss.size(); ++i)
    rows.push_back(step_row(static_cast<std::int64_t>(i), static_cast<std::int64_t>(i / 30),
                            std::exp(loss[i]), std::exp(grad[i])));
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  const double loss_z = value_of(set, "loss.epoch_position_zscore");
  const double grad_z = value_of(set, "grad_norm.epoch_position_zscore");
  EXPECT_GT(loss_z, 3.0);
  EXPECT_GT(grad_z, loss_z);
  EXPECT_NEAR(value_of(set, "data.epoch_position_zscore"), (loss_z + grad_z) / std::sqrt(2.0), 1e-12);
  // The profiles' smoothness, combined the same way: three blocks take turns over 30 positions.
  EXPECT_GT(value_of(set, "data.epoch_profile_smoothness_zscore"), 3.0);
  // Positions count steps: with one step missing from the log there is no test.
  std::vector<json> gap = rows;
  gap.erase(gap.begin() + 50);
  const FeatureSet broken = run_extractor({{kRecordsPort, records_of(gap)}});
  EXPECT_FALSE(find(broken, "data.epoch_position_zscore"));
  // Without gradient norms the combined score is the loss test alone.
  for (json& r : rows) r.erase("grad_norm");
  const FeatureSet loss_only = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_FALSE(find(loss_only, "grad_norm.epoch_position_zscore"));
  EXPECT_DOUBLE_EQ(value_of(loss_only, "data.epoch_position_zscore"),
                   value_of(loss_only, "loss.epoch_position_zscore"));
}

}  // namespace
}  // namespace cann_debug::plugins
