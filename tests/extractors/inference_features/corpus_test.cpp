// On the shared case corpus (skipped when ../shared is absent): the features the inference graph
// discretises fall on the side of its thresholds that their case's label predicts. The inputs are built
// from the case files directly (the readers have their own tests).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "cann_debug/testing.hpp"
#include "inference_features.hpp"
#include "test_inputs.hpp"

namespace cann_debug::plugins {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const fs::path kCases = fs::path(CANN_DEBUG_SHARED_DIR) / "cases" / "inference";

Envelope read_requests(const fs::path& file) {
  RecordBatch b;
  b.source_path = file.string();
  std::ifstream in(file);
  std::string line;
  for (std::int64_t n = 1; std::getline(in, line); ++n)
    if (!line.empty()) b.records.push_back(Record{{}, n, json::parse(line)});
  return Envelope::make(CorrelationKey{}, std::move(b));
}

Envelope read_trace(const fs::path& file) {
  std::ifstream in(file);
  const json doc = json::parse(in);
  EventBatch b;
  for (const auto& e : doc) {
    Event ev;
    ev.name = e.at("name").get<std::string>();
    ev.phase = e.at("ph").get<std::string>().front();
    ev.start_ns = e.at("ts").get<std::int64_t>() * 1000;
    ev.duration_ns = e.value("dur", std::int64_t{0}) * 1000;
    ev.tid = e.at("tid").get<std::int64_t>();
    ev.pid = 1;
    b.events.push_back(std::move(ev));
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

Envelope read_host(const fs::path& file) {
  static const std::map<std::string, std::string> kNames = {
      {"cpu.utilization", "host.cpu.utilization"},
      {"load.runnable", "host.load.runnable"},
      {"proc.threads", "process.threads"},
      {"proc.cpu_utilization", "process.cpu.utilization"}};
  MetricBatch b;
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    const json j = json::parse(line);
    const auto name = kNames.find(j.at("metric").get<std::string>());
    if (name == kNames.end()) continue;
    Labels labels;
    for (const auto& [k, v] : j.at("labels").items())
      labels[k] = v.is_string() ? v.get<std::string>() : v.dump();
    b.points.push_back(
        inference_test::point(name->second, j.at("value").get<double>(), j.at("time").get<double>(), labels));
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

double feature_or_nan(const FeatureSet& set, const std::string& name) {
  const auto f = inference_test::find(set, name);
  return f ? f->value : std::nan("");
}

TEST(InferenceCorpus, DiscretisedFeaturesSeparateTheLabels) {
  if (!fs::is_directory(kCases)) GTEST_SKIP() << kCases << " is absent";
  int cases = 0;
  for (const auto& entry : fs::directory_iterator(kCases)) {
    const fs::path dir = entry.path();
    if (!fs::exists(dir / "expected.json")) continue;
    std::ifstream label_file(dir / "expected.json");
    const std::string label = json::parse(label_file).at("root_cause").get<std::string>();
    // Without config.json: the features must not need it.
    testing::Harness h(inference_features_factory(), json::object());
    h.run_processor({{0, read_requests(dir / "metrics.jsonl")},
                     {1, read_host(dir / "host_metrics.jsonl")},
                     {2, read_trace(dir / "trace.json")}});
    const FeatureSet set = h.outputs_of<FeatureSet>(0).at(0);
    SCOPED_TRACE(dir.filename().string() + " (" + label + ")");
    ++cases;

    const double start = feature_or_nan(set, "latency.start_over_steady");
    const double preprocess = feature_or_nan(set, "request.preprocess_share");
    const double batch_norm = feature_or_nan(set, "model.batch_norm_per_batch");
    const double runnable = feature_or_nan(set, "cpu.runnable_per_core");
    const double threads = feature_or_nan(set, "process.threads_per_core");
    const double backlog = feature_or_nan(set, "queue.backlog_per_batch");
    EXPECT_EQ(start >= 10.0, label == "cold_start") << start;
    EXPECT_EQ(preprocess >= 0.6, label == "preprocessing_bottleneck") << preprocess;
    EXPECT_EQ(batch_norm >= 0.5, label == "unfused_operators") << batch_norm;
    EXPECT_EQ(runnable >= 2.0 || threads >= 2.0, label == "thread_oversubscription")
        << runnable << " " << threads;
    if (label == "no_batching") {
      EXPECT_GE(backlog, 10.0);
    }
    if (label == "healthy") {
      EXPECT_LT(backlog, 10.0);
    }
  }
  EXPECT_GT(cases, 0);
}

}  // namespace
}  // namespace cann_debug::plugins
