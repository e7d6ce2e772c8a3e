// Runs training_features over every training case of the shared corpus (skipped when it is absent):
// the extractor must accept every log, give finite values only, and give the same log-derived features
// with and without config.json (the config is extra evidence, never required).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;
namespace fs = std::filesystem;

fs::path training_cases() {
  return fs::path(CANN_DEBUG_SHARED_DIR) / "cases" / "training";
}

TEST(TrainingFeaturesCorpus, EveryCaseGivesFiniteFeaturesWithAndWithoutConfig) {
  if (!fs::is_directory(training_cases())) GTEST_SKIP() << training_cases() << " is absent";
  std::size_t cases = 0;
  for (const auto& entry : fs::directory_iterator(training_cases())) {
    const fs::path metrics = entry.path() / "metrics.jsonl";
    if (!fs::exists(metrics)) continue;
    ++cases;
    SCOPED_TRACE(entry.path().string());
    const Envelope records = records_of(read_jsonl(metrics.string()));
    const FeatureSet without = run_extractor({{kRecordsPort, records}});
    for (const char* name : {"loss.nonfinite_fraction", "grad_norm.median", "grad_norm.log10_max_over_median",
                             "grad_norm.clip_fraction", "grad.log10_first_last_layer_ratio", "lr.initial"})
      EXPECT_TRUE(find(without, name)) << name;
    for (const auto& f : without.features) EXPECT_TRUE(std::isfinite(f.value)) << f.name;

    std::ifstream config_file(entry.path() / "config.json");
    const json config = json::parse(config_file, nullptr, false);
    ASSERT_FALSE(config.is_discarded());
    const FeatureSet with = run_extractor({{kRecordsPort, records}, {kConfigPort, config_of(config)}});
    for (const auto& f : without.features) {
      const auto g = find(with, f.name, f.labels);
      ASSERT_TRUE(g) << f.name;
      EXPECT_DOUBLE_EQ(g->value, f.value) << f.name;
    }
  }
  EXPECT_GT(cases, 0u);
}

}  // namespace
}  // namespace cann_debug::plugins
