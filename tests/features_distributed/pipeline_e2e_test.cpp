// The real cann-debug binary on pipelines/distributed.yaml with the hand-made 2-rank straggler run of
// tests/data/features_distributed/straggler_2ranks (see make_fixtures.py there).
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.hpp"

namespace fs = std::filesystem;
using cann_debug::testing::ChildProcess;
using nlohmann::json;

namespace {

const std::string kBinary = std::string(CANN_DEBUG_BINARY_DIR) + "/bin/cann-debug";
const fs::path kSource = CANN_DEBUG_SOURCE_DIR;
const fs::path kFixture = fs::path(CANN_DEBUG_TEST_DATA_DIR) / "features_distributed" / "straggler_2ranks";

class DistributedPipeline : public ::testing::Test {
 protected:
  void SetUp() override {
    scratch_ =
        fs::temp_directory_path() /
        ("cann_debug_fdist_" + std::string(::testing::UnitTest::GetInstance()->current_test_info()->name()) +
         "_" + std::to_string(getpid()));
    fs::remove_all(scratch_);
    fs::create_directories(scratch_ / "out");
  }
  void TearDown() override { fs::remove_all(scratch_); }

  // Runs the pipeline on `input`; returns the exit code.
  int run(const fs::path& input) {
    child_ = std::make_unique<ChildProcess>(
        std::vector<std::string>{kBinary, "run", (kSource / "pipelines/distributed.yaml").string(), "--input",
                                 input.string(), "--output", (scratch_ / "out").string()},
        scratch_);
    EXPECT_TRUE(child_->started());
    return child_->wait();
  }

  std::vector<json> messages(const std::string& file) const {
    std::vector<json> rows;
    std::ifstream in(scratch_ / "out" / file);
    std::string line;
    while (std::getline(in, line))
      if (!line.empty()) rows.push_back(json::parse(line));
    return rows;
  }

  // Features of the run-scope set by name.
  std::map<std::string, json> run_features() const {
    std::map<std::string, json> out;
    for (const json& m : messages("features.jsonl"))
      if (m["payload"]["scope"] == "run")
        for (const json& f : m["payload"]["features"]) out[f["name"].get<std::string>()] = f;
    return out;
  }

  std::string top_cause() const {
    const auto posteriors = messages("posterior.jsonl");
    if (posteriors.empty()) return "<no posterior>";
    return posteriors.back()["payload"]["top_causes"][0]["id"].get<std::string>();
  }

  fs::path scratch_;
  std::unique_ptr<ChildProcess> child_;
};

TEST_F(DistributedPipeline, NamesTheStragglerAndTheRankTheOthersWaitedFor) {
  ASSERT_EQ(run(kFixture), 0) << child_->err();
  auto f = run_features();
  ASSERT_TRUE(f.count("rank.late_rank")) << child_->err();
  EXPECT_EQ(f["rank.late_rank"]["value"].get<double>(), 1.0);
  EXPECT_NEAR(f["rank.outside_model_skew"]["value"].get<double>(), 29.0 / 50.0, 1e-9);
  EXPECT_NEAR(f["comm.mean_message_bytes"]["value"].get<double>(), 1e6, 1e-6);
  EXPECT_EQ(top_cause(), "root_cause=straggler_rank");
}

TEST_F(DistributedPipeline, WorksWithoutConfig) {
  const fs::path input = scratch_ / "case";
  fs::create_directories(input);
  for (const char* name : {"rank0.trace.json", "rank1.trace.json", "metrics.jsonl"})
    fs::copy_file(kFixture / name, input / name);
  ASSERT_EQ(run(input), 0) << child_->err();
  auto f = run_features();
  EXPECT_FALSE(f.count("comm.mean_message_bytes"));
  EXPECT_EQ(f["rank.late_rank"]["value"].get<double>(), 1.0);
  EXPECT_EQ(top_cause(), "root_cause=straggler_rank");
}

TEST_F(DistributedPipeline, WithoutTracesTheStepLogStillGivesEvidence) {
  // The pipeline takes whatever a run's folder holds (its readers are optional): with only the step log,
  // the batch-size balance is still evidence, and nothing trace-based is made up.
  const fs::path input = scratch_ / "no_traces";
  fs::create_directories(input);
  fs::copy_file(kFixture / "metrics.jsonl", input / "metrics.jsonl");
  ASSERT_EQ(run(input), 0) << child_->err();
  auto f = run_features();
  EXPECT_TRUE(f.count("rank.batch_size_imbalance"));
  EXPECT_FALSE(f.count("rank.late_rank"));
  EXPECT_FALSE(f.count("comm.exposed_ratio"));
  EXPECT_NE(top_cause(), "<no posterior>");
}

}  // namespace
