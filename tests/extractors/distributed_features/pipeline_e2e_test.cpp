// The real cann-debug binary on pipelines/distributed.yaml with the hand-made 2-rank straggler runs of
// tests/data/features_distributed (straggler_2ranks: CPU/gloo; kineto_gpu_straggler: Kineto files with GPU
// kernels; see make_fixtures.py there) and, when ../shared is present, the real 2-rank Kineto traces
// of HTA's tests.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kSource = CANN_DEBUG_SOURCE_DIR;
const fs::path kFixture = fs::path(CANN_DEBUG_TEST_DATA_DIR) / "features_distributed" / "straggler_2ranks";
const fs::path kGpuFixture =
    fs::path(CANN_DEBUG_TEST_DATA_DIR) / "features_distributed" / "kineto_gpu_straggler";
const fs::path kSampled2Rank = fs::path(CANN_DEBUG_SHARED_DIR) / "real/kineto/hta_tests/sampled_2rank";

class DistributedPipeline : public cann_debug::testing::CliTest {
 protected:
  DistributedPipeline() : CliTest("fdist") {}

  // Runs the pipeline on `input` with its outputs in <scratch>/out; returns the exit code.
  int run(const fs::path& input) {
    fs::create_directories(scratch_ / "out");
    return CliTest::run({"run", (kSource / "pipelines/distributed.yaml").string(), "--input", input.string(),
                         "--output", (scratch_ / "out").string()});
  }

  std::vector<json> messages(const std::string& file) const {
    return cann_debug::testing::read_jsonl(scratch_ / "out" / file);
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

TEST_F(DistributedPipeline, GpuKinetoRunIsMeasuredOnTheDeviceAndNamesTheStraggler) {
  // rank-<N>.fixture.pt.trace.json matches both rank*.trace.json and *.pt.trace.json: read once.
  ASSERT_EQ(run(kGpuFixture), 0) << child_->err();
  auto f = run_features();
  ASSERT_TRUE(f.count("rank.device_timeline_count")) << child_->err();
  EXPECT_EQ(f["rank.device_timeline_count"]["value"].get<double>(), 2.0);
  EXPECT_EQ(f["rank.traced_count"]["value"].get<double>(), 2.0);
  EXPECT_EQ(f["comm.collectives_per_step"]["value"].get<double>(), 1.0);  // NCCL kernels, each counted once
  EXPECT_NEAR(f["rank.outside_model_skew"]["value"].get<double>(), 0.4, 1e-9);  // GPU idle 61 vs 21 ms
  EXPECT_NEAR(f["rank.collective_wait_skew"]["value"].get<double>(), 0.4, 1e-9);
  EXPECT_NEAR(f["comm.exposed_ratio"]["value"].get<double>(), 10.0 / 30.0, 1e-9);
  EXPECT_EQ(f["rank.late_rank"]["value"].get<double>(), 1.0);
  EXPECT_EQ(top_cause(), "root_cause=straggler_rank");
}

TEST_F(DistributedPipeline, RealKinetoTracesOfTwoRanksAgreeWithHta) {
  if (!fs::exists(kSampled2Rank)) GTEST_SKIP() << kSampled2Rank << " is absent";
  ASSERT_EQ(run(kSampled2Rank), 0) << child_->err();
  auto f = run_features();
  ASSERT_TRUE(f.count("rank.device_timeline_count")) << child_->err();
  EXPECT_EQ(f["rank.device_timeline_count"]["value"].get<double>(), 2.0);
  EXPECT_EQ(f["rank.traced_count"]["value"].get<double>(), 2.0);
  // HTA's comp/comm overlap of ProfilerStep#551 (shared/real/kineto/hta_reference/hta_sampled_2rank.json):
  // 11.81 % on rank 0, 20.05 % on rank 1; both steps of both ranks lie between.
  const double with_waits = f["comm.exposed_ratio_with_waits"]["value"].get<double>();
  EXPECT_GT(with_waits, 1.0 - 0.2005);
  EXPECT_LT(with_waits, 1.0 - 0.1181);
  EXPECT_GT(f["comm.exposed_ratio"]["value"].get<double>(), 0.5);
  EXPECT_EQ(f["comm.collectives_per_step"]["value"].get<double>(), 5.0);  // 10 NCCL kernels in 2 steps
  EXPECT_LT(f["rank.outside_model_skew"]["value"].get<double>(), 0.15);   // no idle GPU stands out
  EXPECT_LT(f["rank.collective_wait_skew"]["value"].get<double>(), 0.35);
  // Most of the NCCL time runs with no compute kernel beside it: the evidence points at missing overlap,
  // not at a made-up link problem.
  EXPECT_EQ(top_cause(), "root_cause=no_comm_overlap");
}

}  // namespace
