// Whether every step trains on the same batch (repeated_batch.hpp): one batch seen again and again leaves a
// loss without batch noise that follows its trend exactly; different batches, a stuck loss and full-batch
// training do not read so.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "repeated_batch.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;
using training_detail::on_trend_fraction;

/// A loss falling from 2.3 towards 0.3, with batch noise of `sigma` relative to its level.
std::vector<double> falling(int n, double sigma, unsigned seed) {
  std::mt19937 gen(seed);
  std::normal_distribution<double> noise(0.0, sigma);
  std::vector<double> v;
  for (int i = 0; i < n; ++i) {
    const double level = 0.3 + 2.0 * std::exp(-i / 80.0);
    v.push_back(level * (1.0 + noise(gen)));
  }
  return v;
}

TEST(RepeatedBatch, ALossWithoutBatchNoiseFollowsItsTrendExactly) {
  EXPECT_DOUBLE_EQ(*on_trend_fraction(falling(300, 0.0, 1), 10), 1.0);
  // Different batches put the centre on its window's median only by chance (about 1 in 21).
  EXPECT_LT(*on_trend_fraction(falling(300, 0.05, 1), 10), 0.2);
  // A loss stuck at one value (saturated, or zero after a blow-up) is no trend followed.
  EXPECT_DOUBLE_EQ(*on_trend_fraction(std::vector<double>(300, 0.0), 10), 0.0);
  EXPECT_FALSE(on_trend_fraction(falling(30, 0.0, 1), 10));  // 10 steps with a whole window
  EXPECT_FALSE(on_trend_fraction(falling(300, 0.0, 1), 0));
}

std::vector<json> repeated_rows_of(const std::vector<double>& loss) {
  std::vector<json> rows;
  for (std::size_t i = 0; i < loss.size(); ++i)
    rows.push_back({{"step", i}, {"time", 1000.0 + static_cast<double>(i)}, {"epoch", i}, {"loss", loss[i]}});
  return rows;
}

TEST(RepeatedBatch, OnlyADatasetLargerThanTheBatchMakesItARepeatedBatch) {
  const auto rows = records_of(repeated_rows_of(falling(200, 0.0, 2)));
  // 178 samples, batches of 96: one step per epoch, the same 96 every time.
  const FeatureSet repeated =
      run_extractor({{kRecordsPort, rows},
                     {kConfigPort, config_of({{"batch_size", 96}, {"dataset", {{"num_samples", 178}}}})}});
  EXPECT_DOUBLE_EQ(value_of(repeated, "loss.on_trend_fraction"), 1.0);
  EXPECT_DOUBLE_EQ(value_of(repeated, "data.repeated_batch_share"), 1.0);
  // Full-batch training: the same smooth loss, and nothing wrong with it.
  const FeatureSet full =
      run_extractor({{kRecordsPort, rows},
                     {kConfigPort, config_of({{"batch_size", 178}, {"dataset", {{"num_samples", 178}}}})}});
  EXPECT_TRUE(find(full, "loss.on_trend_fraction"));
  EXPECT_FALSE(find(full, "data.repeated_batch_share"));
  // Without a config the dataset size is unknown: the share alone.
  const FeatureSet bare = run_extractor({{kRecordsPort, rows}});
  EXPECT_FALSE(find(bare, "data.repeated_batch_share"));
}

}  // namespace
}  // namespace cann_debug::plugins
