// Golden tests against Holistic Trace Analysis' own outputs (../shared/real/kineto/hta_reference/*.json, made
// by HTA f4d0062 on the traces next to them). Skipped when ../shared is absent.
//
// Tolerances: every time HTA reports in microseconds (temporal breakdown, kernel-type sums, idle time per
// stream and category, launch counts) must match exactly: both sides use the same integer microseconds. HTA
// rounds percentages and ratios to 2 decimals, so those must be within 0.005; the launch-statistics
// describe() values are rounded to 4 decimals, so within 5e-5 (plus 1e-9 relative for the large means).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <map>

#include "chrome_trace.hpp"
#include "hta_metrics.hpp"
#include "traces_test_support.hpp"

namespace cann_debug::traces_test {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::Harness;

struct Deviation {
  double max = 0;
  int compared = 0;
};

class Golden : public ::testing::TestWithParam<const char*> {
 protected:
  void SetUp() override {
    const fs::path shared = shared_dir();
    root_ = shared / "real" / "kineto";
    ref_path_ = root_ / "hta_reference" / (std::string(GetParam()) + ".json");
    if (shared.empty() || !fs::exists(ref_path_)) GTEST_SKIP() << "../shared is absent: " << ref_path_;
    ref_ = json::parse(read_file(ref_path_));
    run();
  }

  void TearDown() override {
    if (deviations_.empty()) return;
    std::string summary;
    for (const auto& [area, d] : deviations_)
      summary += fmt::format("{}{} max |delta| {:.3g} over {}", summary.empty() ? "" : "; ", area, d.max,
                             d.compared);
    RecordProperty("deviation", summary);
    std::printf("[ golden   ] %s: %s\n", GetParam(), summary.c_str());
  }

  // Reads every trace of the set with chrome_trace (the rank HTA used), then runs hta_metrics with HTA's
  // include_last_profiler_step for this reference.
  void run() {
    Harness metrics(plugins::hta_metrics_factory(),
                    {{"include_last_profiler_step", ref_.at("params").at("include_last_profiler_step")}});
    std::vector<std::pair<std::size_t, Envelope>> inputs;
    for (const auto& [rank, file] : ref_.at("trace_files").items()) {
      Harness reader(plugins::chrome_trace_factory(),
                     {{"path", (root_ / file.get<std::string>()).string()}, {"rank", std::stoi(rank)}});
      ASSERT_EQ(traces_test::run(reader), "");
      for (const auto& [port, env] : reader.out.emitted) inputs.emplace_back(0, env);
    }
    metrics.run_processor(inputs);
    for (const auto& set : metrics.outputs_of<FeatureSet>(0)) {
      if (set.scope == "job") job_ = set;
      for (const auto& f : set.features) {
        std::string key = f.name;
        for (const char* label : {"kernel_type", "stream", "idle_category"})
          if (const auto it = f.labels.find(label); it != f.labels.end()) key += "|" + it->second;
        features_[std::stoi(f.labels.at("rank"))][key] = f.value;
      }
    }
  }

  std::optional<double> mine(int rank, const std::string& key) const {
    const auto r = features_.find(rank);
    if (r == features_.end()) return std::nullopt;
    const auto it = r->second.find(key);
    return it == r->second.end() ? std::nullopt : std::optional<double>(it->second);
  }

  void expect(const std::string& area, int rank, const std::string& key, double gold, double tolerance) {
    const auto v = mine(rank, key);
    ASSERT_TRUE(v.has_value()) << "rank " << rank << " has no feature " << key;
    const double d = std::fabs(*v - gold);
    EXPECT_LE(d, tolerance) << area << ": rank " << rank << " " << key << " = " << *v << ", HTA " << gold;
    auto& dev = deviations_[area];
    dev.max = std::max(dev.max, d);
    ++dev.compared;
  }

  void check_temporal_breakdown();
  void check_comm_comp_overlap();
  void check_kernel_type_breakdown();
  void check_idle_time_breakdown();
  void check_launch_stats();
  void check_stragglers();

  fs::path root_, ref_path_;
  json ref_;
  std::map<int, std::map<std::string, double>> features_;
  std::optional<FeatureSet> job_;
  std::map<std::string, Deviation> deviations_;
};

void Golden::check_temporal_breakdown() {
  for (const auto& t : ref_.at("temporal_breakdown")) {
    const int rank = t.at("rank");
    expect("temporal us", rank, "idle_time", t.at("idle_time(us)"), 0);
    expect("temporal us", rank, "compute_time", t.at("compute_time(us)"), 0);
    expect("temporal us", rank, "non_compute_time", t.at("non_compute_time(us)"), 0);
    expect("temporal us", rank, "kernel_time", t.at("kernel_time(us)"), 0);
    for (const char* p : {"idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"})
      expect("temporal %", rank, p, t.at(p), 0.005);
  }
}

void Golden::check_comm_comp_overlap() {
  for (const auto& o : ref_.at("comm_comp_overlap")) {
    const int rank = o.at("rank");
    if (o.at("comp_comm_overlap_pctg").is_null())  // HTA: NaN without communication kernels
      EXPECT_FALSE(mine(rank, "comp_comm_overlap_pctg").has_value());
    else
      expect("overlap %", rank, "comp_comm_overlap_pctg", o.at("comp_comm_overlap_pctg"), 0.005);
  }
}

void Golden::check_kernel_type_breakdown() {
  // HTA sums the kernel-type times over ranks; we report them per rank.
  std::map<std::string, double> total;
  for (const auto& [rank, f] : features_)
    for (const auto& [key, v] : f)
      if (key.rfind("kernel_type_breakdown.sum|", 0) == 0) total[key.substr(26)] += v;
  std::map<std::string, double> gold;
  for (const auto& k : ref_.at("gpu_kernel_breakdown_with_memory").at("kernel_type"))
    gold[k.at("kernel_type")] = k.at("sum");
  double sum = 0;
  for (const auto& [type, t] : total) sum += t;
  for (const auto& [type, g] : gold) {
    EXPECT_EQ(total[type], g) << type;
    auto& dev = deviations_["kernel type us"];
    dev.max = std::max(dev.max, std::fabs(total[type] - g));
    ++dev.compared;
  }
  for (const auto& [type, t] : total)
    if (t != 0) {
      EXPECT_TRUE(gold.count(type)) << "HTA has no " << type;
    }
  for (const auto& k : ref_.at("gpu_kernel_breakdown_with_memory").at("kernel_type")) {
    const double pct = sum > 0 ? 100.0 * total[k.at("kernel_type")] / sum : 0;
    EXPECT_NEAR(pct, k.at("percentage").get<double>(), 0.05) << k.at("kernel_type");  // HTA: 1 decimal
  }
}

void Golden::check_idle_time_breakdown() {
  for (const auto& x : ref_.at("idle_time_breakdown").at("by_category")) {
    const int rank = x.at("rank");
    const std::string key = "|" + std::to_string(x.at("stream").get<std::int64_t>()) + "|" +
                            x.at("idle_category").get<std::string>();
    expect("idle us", rank, "idle_time_breakdown.idle_time" + key, x.at("idle_time"), 0);
    if (!x.at("idle_time_ratio").is_null())
      expect("idle ratio", rank, "idle_time_breakdown.idle_time_ratio" + key, x.at("idle_time_ratio"), 0.005);
  }
}

void Golden::check_launch_stats() {
  for (const auto& [rank_text, s] : ref_.at("cuda_kernel_launch_stats").at("summary").items()) {
    const int rank = std::stoi(rank_text);
    const std::string p = "cuda_kernel_launch_stats.";
    expect("launch counts", rank, p + "n", s.at("n"), 0);
    if (s.at("n") == 0) continue;
    expect("launch counts", rank, p + "short_gpu_kernels", s.at("short_gpu_kernels(cpu<=50us & gpu<cpu)"), 0);
    expect("launch counts", rank, p + "runtime_outliers", s.at("runtime_outliers(cpu>50us)"), 0);
    expect("launch counts", rank, p + "launch_delay_outliers", s.at("launch_delay_outliers(>100us)"), 0);
    const std::pair<const char*, const char*> stats[] = {{"mean", "mean"}, {"std", "std"}, {"min", "min"},
                                                         {"50%", "p50"},   {"90%", "p90"}, {"99%", "p99"},
                                                         {"max", "max"}};
    for (const char* col : {"cpu_duration", "gpu_duration", "launch_delay"})
      for (const auto& [theirs, ours] : stats) {
        const double g = s.at("describe").at(col).at(theirs);
        expect("launch describe", rank, p + col + "." + ours, g, 5e-5 + 1e-9 * std::fabs(g));
      }
  }
}

void Golden::check_stragglers() {
  if (!ref_.contains("potential_stragglers") || ref_.at("potential_stragglers").is_null())
    return;  // a single-rank set: HTA has no straggler figure
  ASSERT_TRUE(job_.has_value());
  std::vector<int> stragglers;
  for (const auto& f : job_->features)
    if (f.name == "straggler.is_potential" && f.value == 1)
      stragglers.push_back(std::stoi(f.labels.at("rank")));
  std::vector<int> gold = ref_.at("potential_stragglers").get<std::vector<int>>();
  std::sort(gold.begin(), gold.end());
  EXPECT_EQ(stragglers, gold);
}

// One test per reference (each ctest test is a process: the traces are read once).
TEST_P(Golden, MatchesHta) {
  {
    SCOPED_TRACE("temporal_breakdown");
    check_temporal_breakdown();
  }
  {
    SCOPED_TRACE("comm_comp_overlap");
    check_comm_comp_overlap();
  }
  {
    SCOPED_TRACE("kernel_type_breakdown");
    check_kernel_type_breakdown();
  }
  {
    SCOPED_TRACE("idle_time_breakdown");
    check_idle_time_breakdown();
  }
  {
    SCOPED_TRACE("launch_stats");
    check_launch_stats();
  }
  {
    SCOPED_TRACE("stragglers");
    check_stragglers();
  }
}

INSTANTIATE_TEST_SUITE_P(TracesHta, Golden,
                         ::testing::Values("hta_amd_mi250", "hta_cp_alexnet", "hta_cp_cuda_event_sync",
                                           "hta_cp_cuda_event_sync_multi_stream", "hta_cp_simple_add",
                                           "hta_mtia_inference", "hta_sampled_2rank",
                                           "hta_trace_diff_control", "hta_trace_diff_test",
                                           "hta_triton_example", "hta_v100_ddp_rank1of2",
                                           "hta_v100_ns_resolution", "kineto_resnet50_num_workers_0",
                                           "kineto_resnet50_num_workers_4", "tracelens_h100_bert_small",
                                           "tracelens_vllm_decode_graph_execution"),
                         [](const auto& info) { return std::string(info.param); });

}  // namespace
}  // namespace cann_debug::traces_test
