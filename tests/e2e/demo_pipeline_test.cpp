// Drives the real cann-debug binary on the shipped pipelines and the bundled samples.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using cann_debug::testing::ChildProcess;
using cann_debug::testing::read_jsonl;
using nlohmann::json;

namespace {

const fs::path kSource = CANN_DEBUG_SOURCE_DIR;

class DemoPipeline : public cann_debug::testing::CliTest {
 protected:
  DemoPipeline() : CliTest("e2e") {}
  // Every feature of every feature.set/1 message in a JSON-lines file, by name.
  static std::map<std::string, json> features(const fs::path& file) {
    std::map<std::string, json> out;
    std::ifstream in(file);
    std::string line;
    while (std::getline(in, line)) {
      json msg = json::parse(line);
      EXPECT_EQ(msg["type"], "feature.set/1");
      for (const auto& f : msg["payload"]["features"]) out[f["name"].get<std::string>()] = f;
    }
    return out;
  }
};

TEST_F(DemoPipeline, FindsTheLossSpikeInTheBundledRun) {
  const fs::path input = kSource / "samples/training-lr-too-high";
  ASSERT_EQ(run({"run", (kSource / "pipelines/demo.yaml").string(), "--input", input.string(), "--output",
                 scratch_.string()}),
            0)
      << child_->err();
  EXPECT_NE(child_->out().find("finished"), std::string::npos) << child_->out();

  auto f = features(scratch_ / "features.jsonl");
  ASSERT_TRUE(f.count("loss.max_abs_robust_z")) << "features: " << f.size();
  const json& spike = f["loss.max_abs_robust_z"];
  EXPECT_GT(spike["value"].get<double>(), 10.0);
  ASSERT_FALSE(spike["evidence"].empty());
  const int step = spike["evidence"][0]["first_step"].get<int>();

  // The step the evidence points at is a real spike of the log: far above the median loss.
  std::vector<double> losses;
  double loss_at_step = 0;
  for (const auto& row : read_jsonl(input / "metrics.jsonl")) {
    if (!row["loss"].is_number()) continue;
    losses.push_back(row["loss"].get<double>());
    if (row["step"].get<int>() == step) loss_at_step = row["loss"].get<double>();
  }
  std::nth_element(losses.begin(), losses.begin() + losses.size() / 2, losses.end());
  const double median = losses[losses.size() / 2];
  EXPECT_GT(loss_at_step, 5 * median) << "step " << step;
  EXPECT_EQ(f["loss.count"]["value"].get<double>(), 300.0);  // steps of the sample (scripts/make-samples.py)
}

TEST_F(DemoPipeline, HealthyRunHasNoComparableSpike) {
  auto max_loss_z = [&](const std::string& sample) {
    const fs::path out = scratch_ / sample;
    EXPECT_EQ(run({"run", (kSource / "pipelines/demo.yaml").string(), "--input",
                   (kSource / "samples" / sample).string(), "--output", out.string()}),
              0)
        << child_->err();
    auto f = features(out / "features.jsonl");
    EXPECT_TRUE(f.count("loss.max_abs_robust_z"));
    return f["loss.max_abs_robust_z"]["value"].get<double>();
  };
  const double healthy = max_loss_z("training-healthy");
  const double faulty = max_loss_z("training-lr-too-high");
  // A decreasing loss has early outliers too, but nothing like a divergence spike.
  EXPECT_LT(healthy * 4, faulty) << "healthy " << healthy << ", lr too high " << faulty;
}

TEST_F(DemoPipeline, OverrideWritesAJsonArray) {
  ASSERT_EQ(run({"run", (kSource / "pipelines/demo.yaml").string(), "--input",
                 (kSource / "samples/training-healthy").string(), "--output", scratch_.string(), "--set",
                 "json_sink/features.format=json", "--set",
                 "json_sink/features.path=" + (scratch_ / "f.json").string()}),
            0)
      << child_->err();
  std::ifstream in(scratch_ / "f.json");
  json doc = json::parse(in);
  ASSERT_TRUE(doc.is_array());
  EXPECT_EQ(doc.size(), 1u);
  EXPECT_EQ(doc[0]["type"], "feature.set/1");
  EXPECT_EQ(doc[0]["source"], "rolling_stats/steps");
}

TEST_F(DemoPipeline, MissingInputIsReportedWithItsPosition) {
  EXPECT_EQ(run({"validate", (kSource / "pipelines/demo.yaml").string(), "--output", scratch_.string()}), 3);
  const std::string err = child_->err();
  EXPECT_NE(err.find("demo.yaml:12:11: error: undefined variable '${input}' (pass --input DIR)"),
            std::string::npos)
      << err;
  EXPECT_NE(err.find("1 error(s); nothing was run"), std::string::npos) << err;
}

TEST_F(DemoPipeline, HostMetricsFromProc) {
  ASSERT_EQ(run({"run", (kSource / "pipelines/host-metrics.yaml").string(), "--output", scratch_.string(),
                 "--set", "procfs/host.samples=3", "--set", "procfs/host.interval=20ms"}),
            0)
      << child_->err();
  int utilization_points = 0;
  for (const auto& msg : read_jsonl(scratch_ / "metrics.jsonl"))
    for (const auto& p : msg["payload"]["points"])
      if (p["name"] == "host.cpu.utilization") {
        ++utilization_points;
        EXPECT_GE(p["value"].get<double>(), 0.0);
        EXPECT_LE(p["value"].get<double>(), 1.0);
      }
  EXPECT_GT(utilization_points, 0);  // the first sample only primes the counters
}

TEST_F(DemoPipeline, InterruptStopsSamplersAndKeepsWhatWasCollected) {
  ChildProcess* child =
      &start({"run", (kSource / "pipelines/host-metrics.yaml").string(), "--output", scratch_.string(),
              "--set", "procfs/host.samples=0", "--set", "procfs/host.interval=20ms"});
  // Wait until samples are on disk, then Ctrl-C.
  for (int i = 0; i < 500 && read_jsonl(scratch_ / "metrics.jsonl").size() < 3; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  child->signal(SIGINT);
  EXPECT_EQ(child->wait(std::chrono::seconds(20)), 130) << child->err();
  EXPECT_GE(read_jsonl(scratch_ / "metrics.jsonl").size(), 3u);
  // Drained and flushed: the extractor's end-of-stream features reached their sink.
  EXPECT_FALSE(features(scratch_ / "features.jsonl").empty());
  EXPECT_NE(child->out().find("interrupted"), std::string::npos) << child->out();
}

}  // namespace
