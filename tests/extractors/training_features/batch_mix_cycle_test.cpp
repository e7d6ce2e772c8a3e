// Tests of the cycle in the batches' class mix (batch_mix_cycle.hpp): class blocks read behind a shuffle
// buffer smaller than a block swing the output bias gradient steadily, its norm once per block (either
// class's excess pulls as hard); a fresh shuffle of the same data leaves its spectrum flat.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <numbers>
#include <random>
#include <vector>

#include "batch_mix_cycle.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;
using training_detail::cycle_test;
using training_detail::log_normal_upper_tail;
using training_detail::normal_deviate_of_log_tail;

/// ln ||gradient of the output bias|| of `steps` batches of `batch` samples of a two-class set, read in
/// blocks of `block` samples of one class taking turns behind a shuffle buffer of `buffer` samples (a
/// buffer of 0: a fresh shuffle), by a model whose probability of the right class rises from 0.5 to 0.85
/// and varies by sample. For two classes the gradient is the batch mean of (p - one-hot): its norm is
/// sqrt(2) x |mean over the batch of (p(class 0) - [y = 0])|.
std::vector<double> output_bias_norms(std::size_t steps, std::size_t batch, std::size_t block,
                                      std::size_t buffer, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> spread(0.0, 0.08);
  std::bernoulli_distribution coin(0.5);
  std::size_t stored = 0;  // position in the stored order
  const auto next_stored = [&] { return static_cast<int>((stored++ / block) % 2); };
  std::deque<int> held;
  const auto draw = [&]() -> int {
    if (buffer == 0) return coin(gen) ? 1 : 0;
    while (held.size() < buffer) held.push_back(next_stored());
    std::uniform_int_distribution<std::size_t> pick(0, held.size() - 1);
    const std::size_t at = pick(gen);
    const int label = held[at];
    held.erase(held.begin() + static_cast<std::ptrdiff_t>(at));
    return label;
  };
  std::vector<double> v;
  for (std::size_t step = 0; step < steps; ++step) {
    const double right = 0.5 + 0.35 * (1.0 - std::exp(-static_cast<double>(step) / 80.0));
    double sum = 0.0;
    for (std::size_t i = 0; i < batch; ++i) {
      const int label = draw();
      const double p_right = std::clamp(right + spread(gen), 0.01, 0.99);
      sum += label == 0 ? -(1.0 - p_right) : 1.0 - p_right;  // p(class 0) - [y = 0]
    }
    v.push_back(std::log(std::sqrt(2.0) * std::fabs(sum / static_cast<double>(batch)) + 1e-4));
  }
  return v;
}

TEST(BatchMixCycle, TheNormalTailAndItsInverseAgree) {
  EXPECT_NEAR(std::exp(log_normal_upper_tail(0.0)), 0.5, 1e-12);
  EXPECT_NEAR(std::exp(log_normal_upper_tail(3.0)), 1.3499e-3, 1e-7);
  EXPECT_NEAR(log_normal_upper_tail(10.0), std::log(7.6199e-24), 1e-3);  // past erfc's reach in floats
  EXPECT_NEAR(log_normal_upper_tail(40.0), -804.608, 0.01);
  for (double z : {-2.0, 0.0, 1.5, 4.9, 5.1, 12.0, 30.0})
    EXPECT_NEAR(normal_deviate_of_log_tail(log_normal_upper_tail(z)), z, 1e-6);
  EXPECT_EQ(normal_deviate_of_log_tail(0.0), -40.0);
}

TEST(BatchMixCycle, ClassBlocksBehindAShuffleBufferSwingTheMixOncePerBlock) {
  // Blocks of 187 samples, a buffer of 150, batches of 32: the mix comes back every 374 samples, and the
  // norm, which either class's excess raises, every 187 samples: 5.8 steps.
  const auto test = cycle_test(output_bias_norms(300, 32, 187, 150, 1));
  ASSERT_TRUE(test);
  EXPECT_EQ(test->segments, 4u);
  EXPECT_EQ(test->ordinates, 29u);  // periods 64/3 down to 64/31 steps
  EXPECT_GT(test->zscore, 5.0);
  EXPECT_NEAR(test->period_steps, 5.8, 0.6);
}

TEST(BatchMixCycle, AFreshShuffleOfTheSameDataLeavesTheSpectrumFlat) {
  double highest = -1e9, lowest = 1e9;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    const auto test = cycle_test(output_bias_norms(300, 32, 187, 0, seed));
    ASSERT_TRUE(test);
    highest = std::max(highest, test->zscore);
    lowest = std::min(lowest, test->zscore);
  }
  EXPECT_LT(highest, 3.0);
  EXPECT_GT(lowest, -10.0);  // a flat band reads as its highest ordinate's own deviate, not a floor
}

TEST(BatchMixCycle, AStoredOrderBehindABufferOfManyBlocksIsMixedAgain) {
  // A buffer of twenty blocks mixes them: the cycle is gone.
  const auto test = cycle_test(output_bias_norms(600, 32, 60, 1200, 3));
  ASSERT_TRUE(test);
  EXPECT_LT(test->zscore, 3.0);
}

/// ln ||output bias gradient|| of a fresh shuffle over an epoch of `epoch` steps that a network has seen
/// thousands of times: the batches late in an epoch hold samples seen longer ago, so the norm rises along
/// the epoch (a saw tooth of `recency`) besides the batch noise; with `blocks`, a class-block swing of 5.8
/// steps as well.
std::vector<double> memorised_epochs(std::size_t steps, std::size_t epoch, double recency, bool blocks,
                                     unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(0.0, 0.2);
  std::vector<double> v;
  for (std::size_t i = 0; i < steps; ++i) {
    const double along = static_cast<double>(i % epoch) / static_cast<double>(epoch - 1);
    const double swing =
        blocks ? 0.3 * std::fabs(std::sin(std::numbers::pi * static_cast<double>(i) / 5.8)) : 0.0;
    v.push_back(-1.0 + recency * along + swing + noise(gen));
  }
  return v;
}

TEST(BatchMixCycle, WhatComesBackEveryShortEpochIsLeftToTheEpochTests) {
  // A 7-step epoch: its harmonics (9.1, 4.6 and 3.0 steps) are lines of any spectrum.
  const std::vector<double> saw = memorised_epochs(2000, 7, 0.4, false, 1);
  const auto blind = cycle_test(saw);
  ASSERT_TRUE(blind);
  EXPECT_GT(blind->zscore, 5.0);
  const auto test = cycle_test(saw, 7);
  ASSERT_TRUE(test);
  EXPECT_EQ(test->segment, 63u);    // nine whole epochs
  EXPECT_EQ(test->ordinates, 26u);  // 3..31 less the harmonics 9, 18 and 27
  EXPECT_LT(test->zscore, 3.0);
  // A cycle of its own beside it still stands out.
  const auto swing = cycle_test(memorised_epochs(2000, 7, 0.4, true, 1), 7);
  ASSERT_TRUE(swing);
  EXPECT_GT(swing->zscore, 5.0);
  EXPECT_NEAR(swing->period_steps, 5.8, 0.6);
  // An epoch longer than a third of a segment leaves the segment and the band as they are.
  const auto long_epoch = cycle_test(output_bias_norms(300, 32, 187, 150, 1), 46);
  ASSERT_TRUE(long_epoch);
  EXPECT_EQ(long_epoch->segment, 64u);
  EXPECT_EQ(long_epoch->ordinates, 29u);
}

TEST(BatchMixCycle, NeedsThreeSegments) {
  EXPECT_FALSE(cycle_test(output_bias_norms(191, 32, 187, 150, 1)));
  EXPECT_TRUE(cycle_test(output_bias_norms(192, 32, 187, 150, 1)));
  EXPECT_FALSE(cycle_test(std::vector<double>(300, 1.0)));  // a constant: no spectrum to read
}

/// Log rows whose output layer ("2.bias") logs the norms of output_bias_norms.
std::vector<json> rows_of(const std::vector<double>& log_norms) {
  std::vector<json> rows;
  for (std::size_t i = 0; i < log_norms.size(); ++i)
    rows.push_back(
        {{"step", i},
         {"loss", 0.7},
         {"grad_norm", 1.0},
         {"layer_grad_norms", {{"0.weight", 0.5}, {"2.weight", 0.4}, {"2.bias", std::exp(log_norms[i])}}}});
  return rows;
}

FeatureSet mix_cycle_features(const std::vector<json>& rows) {
  return run_extractor({{kRecordsPort, records_of(rows)}, {kConfigPort, config_of({{"batch_size", 32}})}});
}

TEST(BatchMixCycle, TheExtractorTestsTheOutputLayersBias) {
  const FeatureSet blocks = mix_cycle_features(rows_of(output_bias_norms(300, 32, 187, 150, 1)));
  EXPECT_GT(value_of(blocks, "grad.output_bias_cycle_zscore"), 5.0);
  EXPECT_NEAR(value_of(blocks, "grad.output_bias_cycle_period"), 5.8, 0.6);
  const auto refs = evidence_of(blocks, "grad.output_bias_cycle_zscore");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].first_step, 0);
  EXPECT_EQ(refs[0].last_step, 255);  // four segments of 64 steps
  EXPECT_EQ(refs[1].id, "2.bias");
  const FeatureSet shuffled = mix_cycle_features(rows_of(output_bias_norms(300, 32, 187, 0, 1)));
  EXPECT_LT(value_of(shuffled, "grad.output_bias_cycle_zscore"), 3.0);
}

TEST(BatchMixCycle, AbsentWhereARowLacksTheBiasOrAStepIsMissing) {
  std::vector<json> rows = rows_of(output_bias_norms(300, 32, 187, 150, 1));
  std::vector<json> gap = rows;
  gap.erase(gap.begin() + 100);
  EXPECT_FALSE(find(mix_cycle_features(gap), "grad.output_bias_cycle_zscore"));
  rows[10]["layer_grad_norms"].erase("2.bias");
  EXPECT_FALSE(find(mix_cycle_features(rows), "grad.output_bias_cycle_zscore"));
}

}  // namespace
}  // namespace cann_debug::plugins
