// The hta_metrics component on small synthetic traces whose HTA figures are worked out by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "hta_metrics.hpp"
#include "traces_test_support.hpp"

namespace cann_debug::traces_test {
namespace {

using plugins::hta_metrics_factory;
using testing::Harness;

// Builds a rank's events (times in microseconds since the reader's clock origin 0).
struct TraceBuilder {
  std::int32_t rank = 0;
  std::vector<Event> events;

  Event& add(std::string name, std::string cat, double ts_us, double dur_us, nlohmann::json args = nullptr) {
    Event e;
    e.name = std::move(name);
    e.category = std::move(cat);
    e.phase = 'X';
    e.start_ns = static_cast<std::int64_t>(std::llround(ts_us * 1000));
    e.duration_ns = static_cast<std::int64_t>(std::llround(dur_us * 1000));
    e.key.rank = rank;
    e.args = std::move(args);
    events.push_back(std::move(e));
    return events.back();
  }
  void kernel(std::string name, double ts, double dur, int stream, int corr = -1) {
    nlohmann::json args = {{"stream", stream}, {"device", 0}};
    if (corr >= 0) args["correlation"] = corr;
    add(std::move(name), "kernel", ts, dur, std::move(args));
  }
  void launch(double ts, double dur, int corr, std::string name = "cudaLaunchKernel") {
    add(std::move(name), "cuda_runtime", ts, dur, {{"correlation", corr}});
  }
  void step(int n, double ts, double dur) {
    add("ProfilerStep#" + std::to_string(n), "user_annotation", ts, dur);
  }
  Envelope envelope() const {
    EventBatch b;
    b.source_path = "synthetic";
    b.events = events;
    return Envelope::make<EventBatch>(CorrelationKey{}, std::move(b));
  }
};

using FeatureMap = std::map<std::string, Feature>;  // copies: the sets are temporaries

std::string key_of(const Feature& f) {
  std::string k = f.name;
  for (const auto& [label, value] : f.labels)
    if (label != "rank" && label != "rule") k += "|" + label + "=" + value;
  return k;
}

std::vector<FeatureSet> run_metrics(const std::vector<TraceBuilder>& ranks, nlohmann::json options = {}) {
  if (options.is_null()) options = nlohmann::json::object();
  Harness h(hta_metrics_factory(), options);
  std::vector<std::pair<std::size_t, Envelope>> in;
  for (const auto& r : ranks) in.emplace_back(0, r.envelope());
  h.run_processor(in);
  return h.outputs_of<FeatureSet>(0);
}

FeatureMap features_of(const FeatureSet& set) {
  FeatureMap m;
  for (const auto& f : set.features) m[key_of(f)] = f;
  return m;
}

double value(const FeatureMap& m, const std::string& key) {
  const auto it = m.find(key);
  EXPECT_NE(it, m.end()) << key;
  return it == m.end() ? std::nan("") : it->second.value;
}

TEST(TracesHtaMetrics, ManifestIsSound) {
  EXPECT_THAT(check_manifest(hta_metrics_factory().manifest()), ::testing::IsEmpty());
  const auto& m = hta_metrics_factory().manifest();
  EXPECT_EQ(m.kind, ComponentKind::kExtractor);
  EXPECT_EQ(m.inputs.at(0).accepts, std::vector<std::string>{"event.batch/1"});
  EXPECT_EQ(m.outputs.at(0).produces, "feature.set/1");
  EXPECT_EQ(m.option("include_last_profiler_step")->default_value, true);
  EXPECT_EQ(m.option("consecutive_kernel_delay_us")->default_value, 30.0);
  EXPECT_EQ(m.option("num_candidates")->default_value, 2);
}

TEST(TracesHtaMetrics, TemporalKernelTypeAndOverlap) {
  TraceBuilder t;
  t.kernel("volta_sgemm_128x64_nn", 0, 10, 7);           // COMPUTATION
  t.kernel("Memcpy HtoD (Pinned -> Device)", 5, 10, 8);  // MEMORY
  t.kernel("ncclKernel_AllReduce_RING", 20, 10, 9);      // COMMUNICATION
  t.kernel("elementwise_kernel", 25, 3, 7);              // COMPUTATION
  const auto sets = run_metrics({t});
  ASSERT_EQ(sets.size(), 1u);
  EXPECT_EQ(sets[0].scope, "rank 0");
  const auto m = features_of(sets[0]);
  EXPECT_EQ(value(m, "kernel_time"), 30);
  EXPECT_EQ(value(m, "idle_time"), 5);  // [15, 20)
  EXPECT_EQ(value(m, "compute_time"), 13);
  EXPECT_EQ(value(m, "non_compute_time"), 12);
  EXPECT_NEAR(value(m, "idle_time_pctg"), 100.0 * 5 / 30, 1e-12);
  EXPECT_NEAR(value(m, "compute_time_pctg"), 100.0 * 13 / 30, 1e-12);
  EXPECT_EQ(value(m, "kernel_type_breakdown.sum|kernel_type=COMPUTATION"), 5);
  EXPECT_EQ(value(m, "kernel_type_breakdown.sum|kernel_type=COMPUTATION overlapping MEMORY"), 5);
  EXPECT_EQ(value(m, "kernel_type_breakdown.sum|kernel_type=MEMORY"), 5);
  EXPECT_EQ(value(m, "kernel_type_breakdown.sum|kernel_type=COMMUNICATION"), 7);
  EXPECT_EQ(value(m, "kernel_type_breakdown.sum|kernel_type=COMPUTATION overlapping COMMUNICATION"), 3);
  EXPECT_NEAR(value(m, "kernel_type_breakdown.percentage|kernel_type=COMMUNICATION"), 100.0 * 7 / 25, 1e-12);
  EXPECT_NEAR(value(m, "comp_comm_overlap_pctg"), 30.0, 1e-12);
  // Every feature has the rank label and evidence: the rank, the GPU window, and for time features kernels.
  const Feature& idle = m.at("idle_time");
  EXPECT_EQ(idle.unit, "us");
  EXPECT_EQ(idle.labels.at("rank"), "0");
  ASSERT_GE(idle.evidence.size(), 3u);
  EXPECT_EQ(idle.evidence[0].kind, "rank");
  EXPECT_EQ(idle.evidence[0].id, "rank0");
  EXPECT_EQ(idle.evidence[1].kind, "window");
  EXPECT_EQ(idle.evidence[1].start_ns, 0);
  EXPECT_EQ(idle.evidence[1].end_ns, 30000);
  EXPECT_EQ(idle.evidence[2].kind, "operator");
  EXPECT_EQ(idle.evidence[2].id, "Memcpy HtoD (Pinned -> Device)");  // the longest kernels first
  EXPECT_EQ(m.at("compute_time").evidence[2].id, "volta_sgemm_128x64_nn");
}

TEST(TracesHtaMetrics, IdleTimeCategoriesAndLaunchStatistics) {
  TraceBuilder t;
  t.add("aten::first", "cpu_op", 0, 1);
  t.launch(95, 2, 1);
  t.kernel("k1", 100, 10, 7, 1);
  t.launch(112, 2, 2);
  t.kernel("k2", 115, 5, 7, 2);  // launched at 112 > 110: host_wait 5
  t.launch(100, 2, 3);
  t.kernel("k3", 121, 9, 7, 3);  // gap 1 < 30: kernel_wait
  t.launch(110, 2, 4);
  t.kernel("k4", 200, 10, 7, 4);                                                    // gap 70: other
  t.add("Stream Sync", "cuda_sync", 205, 1, {{"stream", 7}, {"correlation", 99}});  // left out of idle time
  const auto m = features_of(run_metrics({t}).at(0));
  EXPECT_EQ(value(m, "idle_time_breakdown.idle_time|idle_category=host_wait|stream=7"), 5);
  EXPECT_EQ(value(m, "idle_time_breakdown.idle_time|idle_category=kernel_wait|stream=7"), 1);
  EXPECT_EQ(value(m, "idle_time_breakdown.idle_time|idle_category=other|stream=7"), 70);
  EXPECT_EQ(value(m, "idle_time_breakdown.intervals|idle_category=other|stream=7"), 1);
  EXPECT_NEAR(value(m, "idle_time_breakdown.idle_time_ratio|idle_category=other|stream=7"), 70.0 / 76, 1e-12);
  // Launch delays: 100-97=3, 115-114=1, 121-102=19, 200-112=88.
  EXPECT_EQ(value(m, "cuda_kernel_launch_stats.n"), 4);
  EXPECT_EQ(value(m, "cuda_kernel_launch_stats.short_gpu_kernels"), 0);
  EXPECT_EQ(value(m, "cuda_kernel_launch_stats.runtime_outliers"), 0);
  EXPECT_EQ(value(m, "cuda_kernel_launch_stats.launch_delay_outliers"), 0);
  EXPECT_DOUBLE_EQ(value(m, "cuda_kernel_launch_stats.launch_delay.mean"), 27.75);
  EXPECT_DOUBLE_EQ(value(m, "cuda_kernel_launch_stats.launch_delay.max"), 88);
  EXPECT_DOUBLE_EQ(value(m, "cuda_kernel_launch_stats.launch_delay.p50"), 11);
  EXPECT_DOUBLE_EQ(value(m, "cuda_kernel_launch_stats.cpu_duration.mean"), 2);
  EXPECT_EQ(m.at("cuda_kernel_launch_stats.n").evidence[2].id, "k4");  // the longest delay first
}

TEST(TracesHtaMetrics, NegativeNonComputeIsClampedAndReportedNotAsserted) {
  TraceBuilder t;
  t.kernel("gemm", 0, 10, 7);
  t.kernel("Memcpy DtoD (Device -> Device)", 10.6, 0.3, 7);  // rounds to [11, 10]
  Harness h(hta_metrics_factory(), nlohmann::json::object());
  h.run_processor({{0, t.envelope()}});
  const auto m = features_of(h.outputs_of<FeatureSet>(0).at(0));
  EXPECT_EQ(value(m, "kernel_time"), 10);
  EXPECT_EQ(value(m, "idle_time"), 1);
  EXPECT_EQ(value(m, "compute_time"), 10);
  const auto clamped = "non_compute_time|clamped=non_compute_time";
  EXPECT_EQ(value(m, clamped), 0);
  EXPECT_EQ(value(m, "non_compute_time_clamped|clamped=non_compute_time"), -1);
  bool warned = false;
  for (const auto& [level, line] : h.host.log.lines) warned |= line.find("clamped to 0") != std::string::npos;
  EXPECT_TRUE(warned);
}

TraceBuilder two_step_rank(std::int32_t rank, double late) {
  TraceBuilder t;
  t.rank = rank;
  t.add("aten::first", "cpu_op", 0, 1);
  for (int s = 1; s <= 3; ++s) {
    const double base = 1000.0 * s;
    t.step(s, base, 1000);
    t.launch(base + 10, 2, 10 * s + 1);
    t.kernel("volta_sgemm", base + 20, 300, 7, 10 * s + 1);
    t.launch(base + 20, 2, 10 * s + 2);
    t.kernel("ncclKernel_AllReduce_RING_LL_Sum_float", base + 400 + late, 200, 20, 10 * s + 2);
  }
  return t;
}

TEST(TracesHtaMetrics, LastProfilerStepIsKeptByDefaultAndDroppedLikeHtaOnRequest) {
  const auto keep = features_of(run_metrics({two_step_rank(0, 0)}).at(0));
  EXPECT_EQ(value(keep, "cuda_kernel_launch_stats.n"), 6);
  EXPECT_EQ(value(keep, "kernel_time"), 3600 - 1020);
  const auto hta =
      features_of(run_metrics({two_step_rank(0, 0)}, {{"include_last_profiler_step", false}}).at(0));
  EXPECT_EQ(value(hta, "cuda_kernel_launch_stats.n"), 4);  // step 3's launches start at or after its start
  EXPECT_EQ(value(hta, "kernel_time"), 2600 - 1020);
  EXPECT_EQ(hta.at("kernel_time").evidence[1].last_step, 2);
}

TEST(TracesHtaMetrics, StragglersAcrossRanks) {
  const auto sets =
      run_metrics({two_step_rank(0, 0), two_step_rank(1, 5), two_step_rank(2, 90)}, {{"num_candidates", 1}});
  ASSERT_EQ(sets.size(), 4u);  // three ranks, then the job
  EXPECT_EQ(sets[3].scope, "job");
  std::map<std::string, double> votes, potential;
  for (const auto& f : sets[3].features) {
    (f.name == "straggler.votes" ? votes : potential)[f.labels.at("rank")] = f.value;
    EXPECT_EQ(f.labels.at("kernel"), "ncclKernel_AllReduce_RING_LL_Sum_float");
  }
  EXPECT_EQ(votes, (std::map<std::string, double>{{"0", 0}, {"1", 0}, {"2", 3}}));  // late in steps 1, 2, 3
  EXPECT_EQ(potential, (std::map<std::string, double>{{"0", 0}, {"1", 0}, {"2", 1}}));
}

TEST(TracesHtaMetrics, EventsWithoutRankAreRankZeroAndCpuOnlyTracesGiveNoTemporalBreakdown) {
  TraceBuilder t;
  t.rank = -1;
  t.add("aten::mm", "cpu_op", 0, 5);
  const auto sets = run_metrics({t});
  ASSERT_EQ(sets.size(), 1u);
  const auto m = features_of(sets[0]);
  EXPECT_EQ(m.count("idle_time"), 0u);
  EXPECT_EQ(value(m, "cuda_kernel_launch_stats.n"), 0);
  EXPECT_EQ(m.at("cuda_kernel_launch_stats.n").labels.at("rank"), "0");
}

TEST(TracesHtaMetrics, UsesTheReadersClockOriginForRounding) {
  // With a clock origin the file's microseconds are small; rounding happens there, as in HTA.
  TraceBuilder t;
  Event info;
  info.name = "trace_info";
  info.category = "cann_debug.metadata";
  info.phase = 'M';
  info.args = {{"clock_origin_ns", 1700000000000000000}};
  t.events.push_back(info);
  t.kernel("gemm", 0, 0, 7);
  t.events.back().start_ns = 1700000000000000000 + 1100;  // 1.1 us after the origin
  t.events.back().duration_ns = 2000;
  const auto m = features_of(run_metrics({t}).at(0));
  EXPECT_EQ(value(m, "kernel_time"), 1);  // ceil(1.1) = 2, floor(3.1) = 3
  EXPECT_EQ(m.at("kernel_time").evidence[1].start_ns, 1700000000000000000 + 2000);
}

}  // namespace
}  // namespace cann_debug::traces_test
