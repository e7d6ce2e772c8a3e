// The extractor on the recorded runs of ../shared/cases/distributed (skipped when that folder is absent):
// every rank is found, and the features point at the mechanisms the runs were recorded with.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <optional>
#include <regex>
#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "distributed_features.hpp"

namespace cann_debug::plugins {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kCases = fs::path(CANN_DEBUG_SHARED_DIR) / "cases" / "distributed";

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

// A legacy-exporter trace (bare array, integer microseconds) as one event batch of rank `rank`.
Envelope trace_events(const fs::path& file, std::int32_t rank) {
  EventBatch b;
  b.source_path = file.string();
  for (const json& j : read_json(file)) {
    Event e;
    e.name = j.at("name").get<std::string>();
    e.phase = j.at("ph").get<std::string>().at(0);
    e.start_ns = j.at("ts").get<std::int64_t>() * 1000;
    e.duration_ns = j.value("dur", std::int64_t{0}) * 1000;
    e.tid = j.at("tid").get<std::int64_t>();
    e.key.rank = rank;
    b.events.push_back(std::move(e));
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

struct CaseRun {
  json expected, config;
  std::vector<Feature> features;
  std::optional<double> value(const std::string& name) const {
    for (const Feature& f : features)
      if (f.name == name) return f.value;
    return std::nullopt;
  }
};

CaseRun run_case(const fs::path& dir) {
  CaseRun run{read_json(dir / "expected.json"), read_json(dir / "config.json"), {}};
  std::vector<std::pair<std::size_t, Envelope>> inputs;
  const std::regex rank_file(R"(rank(\d+)\.trace\.json)");
  for (const auto& entry : fs::directory_iterator(dir)) {
    std::smatch m;
    const std::string name = entry.path().filename().string();
    if (std::regex_match(name, m, rank_file))
      inputs.emplace_back(1, trace_events(entry.path(), std::stoi(m[1])));
  }
  testing::Harness h(distributed_features_factory(), json::object());
  h.run_processor(inputs);
  run.features = h.outputs_of<FeatureSet>(0).back().features;
  return run;
}

TEST(DistributedSharedCases, FeaturesFollowTheRecordedMechanisms) {
  if (!fs::is_directory(kCases)) GTEST_SKIP() << kCases << " is absent";
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(kCases)) {
    if (!fs::exists(entry.path() / "expected.json")) continue;
    const CaseRun run = run_case(entry.path());
    const std::string label = run.expected.at("root_cause").get<std::string>();
    SCOPED_TRACE(entry.path().filename().string() + " (" + label + ")");
    ++cases;
    EXPECT_EQ(run.value("rank.traced_count"), run.config.at("world_size").get<double>());
    ASSERT_TRUE(run.value("comm.exposed_ratio").has_value());
    // Synchronising after backward exposes the communication; DDP buckets hide it.
    EXPECT_EQ(*run.value("comm.exposed_ratio") > 0.5, label == "no_comm_overlap");
    if (label == "straggler_rank") {
      // Who waited for whom: the straggler arrives last at the allreduce.
      EXPECT_EQ(run.value("rank.late_rank"), run.expected["fault_params"]["straggler_rank"].get<double>());
      EXPECT_GT(*run.value("rank.outside_model_skew"), 0.15);
    }
    if (label == "small_bucket_size") {
      EXPECT_GT(*run.value("comm.collectives_per_step"), 4.0);
    }
    if (label == "healthy") {
      EXPECT_LE(*run.value("comm.collectives_per_step"), 4.0);
    }
  }
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace cann_debug::plugins
