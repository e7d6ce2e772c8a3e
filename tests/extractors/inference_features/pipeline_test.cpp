// pipelines/inference.yaml through the real cann-debug binary on a small synthetic run without config.json
// (tests/data/features_inference/cold_start_no_config, written by make_fixtures.py there).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test.hpp"

namespace {

namespace fs = std::filesystem;
using cann_debug::testing::ChildProcess;
using cann_debug::testing::kCannDebugBinary;
using cann_debug::testing::read_jsonl;
using nlohmann::json;

const fs::path kSource = CANN_DEBUG_SOURCE_DIR;

TEST(InferencePipeline, RanksColdStartFirstWithoutConfig) {
  const fs::path scratch =
      fs::temp_directory_path() / ("cann_debug_finf_pipeline_" + std::to_string(getpid()));
  fs::remove_all(scratch);
  fs::create_directories(scratch);
  const fs::path input = kSource / "tests/data/features_inference/cold_start_no_config";
  ChildProcess child({kCannDebugBinary, "run", (kSource / "pipelines/inference.yaml").string(), "--input",
                      input.string(), "--output", scratch.string()},
                     scratch);
  ASSERT_TRUE(child.started());
  ASSERT_EQ(child.wait(), 0) << child.err();

  const auto feature_sets = read_jsonl(scratch / "features.jsonl");
  ASSERT_EQ(feature_sets.size(), 1u);
  bool has_start = false;
  bool has_config = false;
  for (const auto& f : feature_sets[0]["payload"]["features"]) {
    const auto name = f["name"].get<std::string>();
    if (name == "latency.start_over_steady") {
      has_start = true;
      EXPECT_NEAR(f["value"].get<double>(), 30.0, 1e-6);  // 60 ms first request over a 2 ms steady state
    }
    if (name.starts_with("config.")) has_config = true;
  }
  EXPECT_TRUE(has_start);
  EXPECT_FALSE(has_config);

  const auto posteriors = read_jsonl(scratch / "posterior.jsonl");
  ASSERT_FALSE(posteriors.empty());
  const auto& top = posteriors.back()["payload"]["top_causes"];
  ASSERT_FALSE(top.empty());
  EXPECT_EQ(top[0]["id"], "root_cause=cold_start") << posteriors.back().dump();
  fs::remove_all(scratch);
}

}  // namespace
