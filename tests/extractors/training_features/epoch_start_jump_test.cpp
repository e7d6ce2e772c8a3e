// The epoch-start test (epoch_start_jump.hpp): an order that is the same every epoch throws the loss up where
// the order starts again, which one epoch start shows; a fresh shuffle, a memorising network's step down, and
// a warm restart of the learning rate do not read as one.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "epoch_start_jump.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;
using training_detail::epoch_start_jump_test;

/// ln(loss) of `epochs` epochs of `period` steps: a learning curve, batch noise of `noise`, and at every
/// epoch start after the first a step of `step` (a share of the loss, negative for a step down) that fades
/// over a tenth of the epoch, as the model fits again the data it went longest without.
std::vector<double> log_loss(std::size_t period, std::size_t epochs, double step, double noise,
                             unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> batch(0.0, noise);
  std::vector<double> v;
  const double fade = static_cast<double>(period) / 10.0;
  for (std::size_t i = 0; i < period * epochs; ++i) {
    const double at = static_cast<double>(i % period);
    const double bump = i >= period ? step * std::exp(-at / fade) : 0.0;
    v.push_back(std::log(0.5 + 1.5 * std::exp(-static_cast<double>(i) / 80.0)) + bump + batch(gen));
  }
  return v;
}

TEST(EpochStartJump, OneEpochStartShowsAStoredOrder) {
  // Two 200-step epochs: the loss 40% up at the one epoch start, noise of 10% per batch.
  const auto test = epoch_start_jump_test(log_loss(200, 2, 0.4, 0.1, 1), 200);
  ASSERT_TRUE(test);
  EXPECT_EQ(test->boundaries, 1u);
  EXPECT_EQ(test->null_phases, 200u - 2 * training_detail::kEpochStartWindow + 1);
  EXPECT_GT(test->jump, 0.2);
  EXPECT_GT(test->zscore, 4.0);
}

TEST(EpochStartJump, AFreshShuffleMakesTheStartAnOrdinaryStep) {
  double highest = -1e9;
  for (unsigned seed = 1; seed <= 30; ++seed) {
    const auto test = epoch_start_jump_test(log_loss(60, 5, 0.0, 0.15, seed), 60);
    ASSERT_TRUE(test);
    highest = std::max(highest, test->zscore);
  }
  EXPECT_LT(highest, 3.5);
}

TEST(EpochStartJump, AStepDownIsNoJump) {
  // A network that memorises its samples: the first batches of an epoch hold samples it saw recently.
  const auto test = epoch_start_jump_test(log_loss(60, 6, -0.3, 0.1, 2), 60);
  ASSERT_TRUE(test);
  EXPECT_LT(test->zscore, -2.0);
}

TEST(EpochStartJump, AWarmRestartAtTheEpochStartIsLeftOut) {
  const std::vector<double> v = log_loss(60, 6, 0.4, 0.1, 3);
  ASSERT_GT(epoch_start_jump_test(v, 60)->zscore, 4.0);
  // Cosine annealing restarted every epoch: the rate rises at each epoch start and explains the jump.
  std::vector<double> rate;
  for (std::size_t i = 0; i < v.size(); ++i)
    rate.push_back(1e-4 + 1e-3 * (1.0 + std::cos(3.14159265 * static_cast<double>(i % 60) / 60.0)) / 2.0);
  EXPECT_FALSE(epoch_start_jump_test(v, 60, rate));
  // A rate that only decays leaves every epoch start in.
  std::vector<double> decaying;
  for (std::size_t i = 0; i < v.size(); ++i)
    decaying.push_back(1e-3 * std::pow(0.99, static_cast<double>(i)));
  const auto kept = epoch_start_jump_test(v, 60, decaying);
  ASSERT_TRUE(kept);
  EXPECT_EQ(kept->boundaries, 5u);
}

TEST(EpochStartJump, ALogThatStartsInsideAnEpochIsReadFromItsFirstEpochStart) {
  // A resumed run whose log starts 25 steps into an epoch: the epochs start at positions 35, 95, ...
  std::vector<double> v = log_loss(60, 6, 0.4, 0.1, 4);
  v.erase(v.begin(), v.begin() + 25);
  const auto aligned = epoch_start_jump_test(v, 60, {}, 35);
  ASSERT_TRUE(aligned);
  EXPECT_GT(aligned->zscore, 4.0);
  EXPECT_EQ(aligned->boundaries, 5u);
  // Read as if the log started with an epoch, the starts fall mid-epoch and show nothing.
  EXPECT_LT(epoch_start_jump_test(v, 60)->zscore, 3.0);
}

TEST(EpochStartJump, NeedsEpochsOfFourWindowsAndOneStartWithAWindowAfterIt) {
  EXPECT_FALSE(epoch_start_jump_test(log_loss(15, 10, 0.4, 0.1, 1), 15));
  EXPECT_TRUE(epoch_start_jump_test(log_loss(16, 10, 0.4, 0.1, 1), 16));
  std::vector<double> short_run = log_loss(100, 2, 0.4, 0.1, 1);
  short_run.resize(103);  // three steps after the epoch start: no window
  EXPECT_FALSE(epoch_start_jump_test(short_run, 100));
  EXPECT_FALSE(epoch_start_jump_test(std::vector<double>(200, 0.5), 50));  // constant: nothing to compare
}

TEST(EpochStartJump, TheExtractorReadsTheLossOnALogScale) {
  const std::vector<double> loss = log_loss(120, 3, 0.4, 0.1, 5);
  std::vector<json> rows;
  for (std::size_t i = 0; i < loss.size(); ++i)
    rows.push_back({{"step", i},
                    {"time", 1000.0 + static_cast<double>(i)},
                    {"epoch", i / 120},
                    {"loss", std::exp(loss[i])},
                    {"lr", 1e-3}});
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_GT(value_of(set, "loss.epoch_start_jump_zscore"), 4.0);
  // The same log resumed 50 steps in: the epoch field says where the epochs start.
  const std::vector<json> resumed(rows.begin() + 50, rows.end());
  EXPECT_GT(value_of(run_extractor({{kRecordsPort, records_of(resumed)}}), "loss.epoch_start_jump_zscore"),
            4.0);
  // A loss at exactly zero (logits that underflowed) has no log scale: no test.
  rows[300]["loss"] = 0.0;
  EXPECT_FALSE(find(run_extractor({{kRecordsPort, records_of(rows)}}), "loss.epoch_start_jump_zscore"));
}

}  // namespace
}  // namespace cann_debug::plugins
