// Tests of the inference_features extractor on hand-built inputs whose features are known by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "cann_debug/manifest.hpp"
#include "cann_debug/testing.hpp"
#include "inference_features.hpp"
#include "test_inputs.hpp"

namespace cann_debug::plugins {
namespace {

using namespace inference_test;
using testing::Harness;

constexpr std::size_t kRecords = 0;
constexpr std::size_t kMetrics = 1;
constexpr std::size_t kEvents = 2;
constexpr std::size_t kConfig = 3;

FeatureSet run(const std::vector<std::pair<std::size_t, Envelope>>& inputs, nlohmann::json options = {}) {
  Harness h(inference_features_factory(), options.is_null() ? nlohmann::json::object() : options);
  h.run_processor(inputs);
  const auto sets = h.outputs_of<FeatureSet>(0);
  EXPECT_EQ(sets.size(), 1u);
  return sets.empty() ? FeatureSet{} : sets.back();
}

double value(const FeatureSet& set, const std::string& name) {
  const auto f = find(set, name);
  if (!f) ADD_FAILURE() << "no feature " << name;
  return f ? f->value : std::nan("");
}

// 20 requests arriving every 100 ms, all 2 ms except the first (40 ms): a cold start.
std::vector<RequestRow> cold_start_requests() {
  std::vector<RequestRow> rows;
  for (int i = 0; i < 20; ++i) {
    const double latency = i == 0 ? 40.0 : 2.0;
    rows.push_back({latency, 1000.0 + 0.1 * i + latency / 1000.0});
  }
  return rows;
}

// 20 requests arriving every 1 ms at a single server taking 2 ms each: the queue grows.
std::vector<RequestRow> overloaded_requests() {
  std::vector<RequestRow> rows;
  double free_at = 0.0;
  for (int i = 0; i < 20; ++i) {
    const double arrival = 0.001 * i;
    const double done = std::max(arrival, free_at) + 0.002;
    free_at = done;
    rows.push_back({(done - arrival) * 1000.0, 2000.0 + done});
  }
  return rows;
}

// Two served batches; see the expected figures in TraceFeatures.
std::vector<Event> two_batch_trace() {
  return {
      slice("ProfilerStep#0", 0, 1000),
      slice("preprocess", 10, 200),
      // Two operators cover 100 of the first preprocess (the nested one adds nothing); the second
      // preprocess is host code only (per-request numpy, say).
      slice("aten::upsample_bilinear2d", 20, 60),
      slice("aten::empty", 25, 10),
      slice("aten::div", 100, 40),
      slice("forward", 300, 600),
      slice("forward", 305, 590),  // TorchScript's nested forward
      slice("aten::conv2d", 310, 100),
      slice("aten::convolution", 315, 90),
      slice("aten::batch_norm", 420, 50),
      slice("aten::native_batch_norm", 425, 40),
      slice("aten::relu_", 480, 20),
      slice("postprocess", 910, 50),
      slice("ProfilerStep#1", 1000, 1000),
      slice("preprocess", 1010, 100),
      slice("forward", 1200, 300),
      slice("aten::linear", 1210, 100),
      slice("postprocess", 1510, 50),
  };
}

TEST(InferenceFeatures, ManifestIsValid) {
  EXPECT_TRUE(check_manifest(inference_features_factory().manifest()).empty());
}

TEST(InferenceFeatures, LatencyDistributionAndColdStart) {
  const auto set = run({{kRecords, request_records(cold_start_requests())}});
  EXPECT_EQ(set.scope, "run");
  EXPECT_DOUBLE_EQ(value(set, "request.count"), 20.0);
  EXPECT_NEAR(value(set, "latency.p50"), 2.0, 1e-9);
  EXPECT_NEAR(value(set, "latency.first_request"), 40.0, 1e-9);
  // First 3 requests (5% of 20, at least 3): slowest 40 ms; steady median 2 ms.
  EXPECT_NEAR(value(set, "latency.start_over_steady"), 20.0, 1e-9);
  EXPECT_NEAR(value(set, "latency.growth_ratio"), 1.0, 1e-9);
  EXPECT_NEAR(value(set, "latency.spike_share"), 1.0 / 20.0, 1e-12);
  EXPECT_NEAR(value(set, "latency.spike_start_share"), 1.0, 1e-12);
  EXPECT_NEAR(value(set, "queue.waiting_mean"), 0.0, 1e-12);
  EXPECT_NEAR(value(set, "batch.size_mean"), 1.0, 1e-12);
  EXPECT_NEAR(value(set, "load.offered_rps"), 10.0, 1e-6);
  // The evidence of the cold-start feature points at the first requests.
  const auto start = find(set, "latency.start_over_steady");
  ASSERT_TRUE(start && !start->evidence.empty());
  EXPECT_EQ(start->evidence.front().first_step, 0);
  EXPECT_EQ(start->evidence.front().last_step, 2);
  // Nothing from absent inputs: no trace, host or config features, and no fake zeros.
  EXPECT_FALSE(find(set, "request.preprocess_share"));
  EXPECT_FALSE(find(set, "cpu.runnable_per_core"));
  EXPECT_FALSE(find(set, "config.threads_per_core"));
  EXPECT_FALSE(find(set, "load.offered_utilization"));
}

// 400 requests of 2 ms: the first call 4 ms (a JIT's profiling run), the second 5 ms (the plan it builds
// after it), and one jitter spike of 30 ms at request 15, inside the 5% start window but not among the first
// calls. The first calls read as the second-slowest of the three: 4 ms.
TEST(InferenceFeatures, FirstCallsAreTheFirstThreeRequestsOnly) {
  std::vector<RequestRow> rows;
  for (int i = 0; i < 400; ++i) {
    const double latency = i == 0 ? 4.0 : i == 1 ? 5.0 : i == 15 ? 30.0 : 2.0;
    rows.push_back({latency, 1000.0 + 0.1 * i + latency / 1000.0});
  }
  const auto set = run({{kRecords, request_records(rows)}});
  EXPECT_NEAR(value(set, "latency.start_over_steady"), 15.0, 1e-9);  // the spike, in a 20-request window
  EXPECT_NEAR(value(set, "latency.first_calls_over_steady"), 2.0, 1e-9);
  const auto first = find(set, "latency.first_calls_over_steady");
  ASSERT_TRUE(first && !first->evidence.empty());
  EXPECT_EQ(first->evidence.front().first_step, 0);
  EXPECT_EQ(first->evidence.front().last_step, 2);
}

// A warmed sub-millisecond service: one of its first three calls takes 1.6 ms against a median of 0.6 (a
// page fault, a scheduler hiccup). One slow call is no first-call cost: the second-slowest reads 1.1 / 0.6.
TEST(InferenceFeatures, OneSlowCallAmongTheFirstThreeIsAHiccup) {
  std::vector<RequestRow> rows;
  for (int i = 0; i < 60; ++i) {
    const double latency = i == 0 ? 1.1 : i == 1 ? 1.6 : 0.6;
    rows.push_back({latency, 1000.0 + 0.01 * i + latency / 1000.0});
  }
  const auto set = run({{kRecords, request_records(rows)}});
  EXPECT_NEAR(value(set, "latency.first_calls_over_steady"), 1.1 / 0.6, 1e-9);
}

// A profiler that recorded the first served batches (ProfilerStep#0 in the trace) started with the first
// call and cost it its start-up: the first requests' latencies are then no evidence of a cold start (and
// two profiled calls are too few to compare the first calls with the later ones in the trace).
TEST(InferenceFeatures, FirstCallsUnderAProfilerFromTheFirstCallAreUnmeasured) {
  const auto set =
      run({{kRecords, request_records(cold_start_requests())}, {kEvents, events(two_batch_trace())}});
  EXPECT_FALSE(find(set, "latency.first_calls_over_steady"));
  EXPECT_DOUBLE_EQ(value(set, "latency.profiled_from_first_call"), 1.0);
  EXPECT_TRUE(find(set, "latency.start_over_steady"));
}

// Profiled served batches 0..n-1, one every 10 ms, each busy for the given microseconds (a preprocess and a
// forward; the rest of the step waits for the next request).
std::vector<Event> profiled_calls(const std::vector<std::int64_t>& busy_us) {
  std::vector<Event> out;
  for (std::size_t i = 0; i < busy_us.size(); ++i) {
    const std::int64_t start = 10'000 * static_cast<std::int64_t>(i);
    out.push_back(slice("ProfilerStep#" + std::to_string(i), start, 10'000));
    out.push_back(slice("preprocess", start + 5, 20));
    out.push_back(slice("forward", start + 30, busy_us[i] - 25));
  }
  return out;
}

// Under a profiler from the first call, the trace compares the first calls with the later profiled ones
// (each pays the same overhead). The profiler's start-up, like any one-off hiccup, slows one call; a
// service that was not warmed up pays first-call costs on two or more of the first three.
TEST(InferenceFeatures, FirstCallsUnderAProfilerFromTheFirstCallAreReadInTheTrace) {
  // Calls 0 and 1 slow (TorchScript's profiling run, then its optimisation): second-slowest 800 us over the
  // later median 200 us.
  auto set = run({{kEvents, events(profiled_calls({1600, 800, 220, 200, 190, 210, 200, 205}))}});
  EXPECT_NEAR(value(set, "latency.first_calls_over_steady"), 4.0, 1e-9);
  const auto first = find(set, "latency.first_calls_over_steady");
  ASSERT_TRUE(first && first->evidence.size() == 2u);
  EXPECT_EQ(first->evidence[0].first_step, 0);
  EXPECT_EQ(first->evidence[0].last_step, 2);
  EXPECT_EQ(first->evidence[1].first_step, 3);
  EXPECT_EQ(first->evidence[1].last_step, 7);
  // Only the first call slow (the profiler's start-up): the first calls are ordinary.
  set = run({{kEvents, events(profiled_calls({1600, 210, 220, 200, 190, 210, 200, 205}))}});
  EXPECT_NEAR(value(set, "latency.first_calls_over_steady"), 220.0 / 200.0, 1e-9);
  // A profiler that started later (no ProfilerStep#0) leaves the first calls to the request log.
  auto later = profiled_calls({1600, 800, 220, 200, 190, 210, 200, 205});
  later.erase(later.begin(), later.begin() + 3);
  set = run({{kEvents, events(later)}});
  EXPECT_FALSE(find(set, "latency.first_calls_over_steady"));
  // Two later calls are too few for a steady median.
  set = run({{kEvents, events(profiled_calls({1600, 800, 220, 200, 190}))}});
  EXPECT_FALSE(find(set, "latency.first_calls_over_steady"));
}

// kernel_details.csv rows (ascend_kernel_details records): where the device's task time went.
Envelope kernel_details(const std::vector<std::tuple<const char*, const char*, double>>& tasks) {
  RecordBatch b;
  b.schema = "ascend.kernel_details/1";
  b.source_path = "w_ascend_pt/ASCEND_PROFILER_OUTPUT/kernel_details.csv";
  for (const auto& [type, core, us] : tasks) {
    Record r;
    r.fields = {{"type", type},
                {"name", std::string(type) + "_1"},
                {"accelerator_core", core},
                {"duration_ns", us * 1000.0}};
    b.records.push_back(std::move(r));
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

TEST(InferenceFeatures, AiCpuShareOfTheDeviceTaskTime) {
  // 600 us of AI Core work, 300 us of two AI CPU operators, 900 us of HCCL (not compute), one task without
  // a duration.
  const auto set = run({{kRecords, kernel_details({{"MatMul", "AI_CORE", 500},
                                                   {"Add", "AI_VECTOR_CORE", 100},
                                                   {"GatherV2", "AI_CPU", 200},
                                                   {"NonZero", "AI_CPU", 100},
                                                   {"hcom_allReduce_", "HCCL", 900}})}});
  EXPECT_NEAR(value(set, "device.compute_task_ms"), 0.9, 1e-12);
  EXPECT_NEAR(value(set, "device.aicpu_share"), 300.0 / 900.0, 1e-12);
  const auto share = find(set, "device.aicpu_share");
  ASSERT_TRUE(share && share->evidence.size() == 3u);
  EXPECT_EQ(share->evidence[0].id, "GatherV2");  // the AI CPU operator of most time first
  EXPECT_EQ(share->evidence[1].id, "NonZero");
  EXPECT_EQ(share->evidence[2].kind, "series");
  EXPECT_NEAR(value(set, "device.top_op_share"), 500.0 / 900.0, 1e-12);
  EXPECT_EQ(find(set, "device.top_op_share")->evidence[0].id, "MatMul");
  // A request log's rows are not device tasks, and no kernel_details means no device feature.
  const auto requests_only = run({{kRecords, request_records(cold_start_requests())}});
  EXPECT_FALSE(find(requests_only, "device.aicpu_share"));
}

TEST(InferenceFeatures, QueueGrowthOfAnOverloadedServer) {
  const auto rows = overloaded_requests();
  const auto set = run({{kRecords, request_records(rows)}});
  // Latency i + 2 ms: first quarter median 4 ms, last quarter 19 ms.
  EXPECT_NEAR(value(set, "latency.growth_ratio"), 19.0 / 4.0, 1e-6);
  // Waiting requests by brute force: earlier requests completing after each arrival.
  double total = 0.0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (rows[j].completion_s > rows[i].completion_s - rows[i].latency_ms / 1000.0) total += 1.0;
  EXPECT_NEAR(value(set, "queue.waiting_mean"), total / 20.0, 1e-9);
  EXPECT_NEAR(value(set, "queue.backlog_per_batch"), total / 20.0, 1e-9);
  EXPECT_NEAR(value(set, "load.offered_rps"), 1000.0, 1e-3);
  EXPECT_NEAR(value(set, "load.served_rps"), 500.0, 1e-3);
  EXPECT_NEAR(value(set, "load.served_over_offered"), 0.5, 1e-6);
}

TEST(InferenceFeatures, TraceFeatures) {
  const auto set = run({{kEvents, events(two_batch_trace())}});
  EXPECT_DOUBLE_EQ(value(set, "trace.profiled_batches"), 2.0);
  EXPECT_NEAR(value(set, "request.preprocess_ms"), 0.15, 1e-12);
  EXPECT_NEAR(value(set, "model.forward_ms"), 0.45, 1e-12);  // the outermost forward, not the nested one
  EXPECT_NEAR(value(set, "request.postprocess_ms"), 0.05, 1e-12);
  EXPECT_NEAR(value(set, "request.preprocess_share"), 300.0 / 1300.0, 1e-12);
  EXPECT_NEAR(value(set, "request.model_share"), 900.0 / 1300.0, 1e-12);
  EXPECT_NEAR(value(set, "request.preprocess_operator_share"), 100.0 / 1300.0, 1e-12);
  EXPECT_NEAR(value(set, "request.preprocess_outside_operators_share"), 200.0 / 1300.0, 1e-12);
  EXPECT_NEAR(value(set, "model.ops_per_batch"), 3.0, 1e-12);  // median of 5 and 1
  EXPECT_NEAR(value(set, "model.batch_norm_per_batch"), 0.5, 1e-12);
  EXPECT_NEAR(value(set, "model.op_gap_share"), 1.0 - 270.0 / 900.0, 1e-12);
  EXPECT_NEAR(value(set, "model.top_op_share"), 100.0 / 900.0, 1e-12);
  EXPECT_EQ(find(set, "model.top_op_share")->evidence.front().id, "aten::linear");
  EXPECT_NEAR(value(set, "request.service_ms"), 0.65, 1e-12);
  EXPECT_FALSE(find(set, "latency.p50"));
}

TEST(InferenceFeatures, OfferedUtilisationCombinesRequestsAndTrace) {
  const auto set =
      run({{kRecords, request_records(overloaded_requests())}, {kEvents, events(two_batch_trace())}});
  EXPECT_NEAR(value(set, "load.offered_utilization"), 1000.0 * 0.65 / 1000.0, 1e-6);
}

TEST(InferenceFeatures, HostContentionWithoutConfig) {
  const auto set = run({{kMetrics, metrics({
                                       point("host.cpu.utilization", 0.5, 1.0, {{"cpu", "all"}}),
                                       point("host.cpu.utilization", 0.4, 1.0, {{"cpu", "0"}}),
                                       point("host.cpu.utilization", 0.6, 1.0, {{"cpu", "1"}}),
                                       point("host.cpu.utilization", 0.7, 1.1, {{"cpu", "all"}}),
                                       point("host.load.runnable", 5, 1.0),
                                       point("host.load.runnable", 7, 1.1),
                                       point("process.threads", 8, 1.0, {{"pid", "11"}, {"role", "server"}}),
                                       point("process.threads", 16, 1.1, {{"pid", "11"}, {"role", "server"}}),
                                       point("process.cpu.utilization", 0.4, 1.0, {{"pid", "11"}}),
                                       point("process.cpu.utilization", 0.6, 1.1, {{"pid", "11"}}),
                                   })}});
  EXPECT_DOUBLE_EQ(value(set, "host.cores"), 2.0);
  EXPECT_NEAR(value(set, "cpu.utilization_mean"), 0.6, 1e-12);
  EXPECT_NEAR(value(set, "cpu.runnable_per_core"), 3.0, 1e-12);
  EXPECT_NEAR(value(set, "process.threads_max"), 16.0, 1e-12);
  EXPECT_NEAR(value(set, "process.threads_per_core"), 8.0, 1e-12);
  EXPECT_NEAR(value(set, "process.cpu_cores_used"), 0.5, 1e-12);
}

TEST(InferenceFeatures, CoresFromConfigWhenMetricsLackPerCpuSeries) {
  const auto set = run({{kConfig, config({{"cpu_count", 4},
                                          {"num_threads", 16},
                                          {"max_batch_size", 1},
                                          {"warmup_requests", 0},
                                          {"model_format", "eager"}})},
                        {kMetrics, metrics({point("host.load.runnable", 8, 1.0)})}});
  EXPECT_NEAR(value(set, "cpu.runnable_per_core"), 2.0, 1e-12);
  EXPECT_NEAR(value(set, "config.threads_per_core"), 4.0, 1e-12);
  EXPECT_NEAR(value(set, "config.max_batch_size"), 1.0, 1e-12);
  EXPECT_NEAR(value(set, "config.warmup_requests"), 0.0, 1e-12);
  EXPECT_NEAR(value(set, "config.eager_model"), 1.0, 1e-12);
}

TEST(InferenceFeatures, NoCoresNoPerCoreFeatures) {
  const auto set = run({{kMetrics, metrics({point("host.load.runnable", 8, 1.0)})}});
  EXPECT_FALSE(find(set, "cpu.runnable_per_core"));
  EXPECT_FALSE(find(set, "host.cores"));
}

TEST(InferenceFeatures, EmptyStreamGivesAnEmptySet) {
  const auto set = run({});
  EXPECT_TRUE(set.features.empty());
}

TEST(InferenceFeatures, BadRequestFieldNamesFileAndLine) {
  RecordBatch b;
  b.source_path = "case/metrics.jsonl";
  b.records.push_back(Record{{}, 7, {{"request_id", 0}, {"latency_ms", "slow"}}});
  Harness h(inference_features_factory(), nlohmann::json::object());
  h.component().start();
  try {
    h.component().process(Envelope::make(CorrelationKey{}, std::move(b)), kRecords, h.out);
    FAIL() << "expected an error";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("case/metrics.jsonl:7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("latency_ms"), std::string::npos) << e.what();
  }
}

TEST(InferenceFeatures, ConfigThatIsNotAnObjectIsAnError) {
  Harness h(inference_features_factory(), nlohmann::json::object());
  h.component().start();
  EXPECT_THROW(
      {
        try {
          h.component().process(config(nlohmann::json::array(), "run/config.json"), kConfig, h.out);
        } catch (const std::runtime_error& e) {
          EXPECT_NE(std::string(e.what()).find("run/config.json"), std::string::npos) << e.what();
          throw;
        }
      },
      std::runtime_error);
}

TEST(InferenceFeatures, SpikeFactorOption) {
  // With spike_factor 25 the 40 ms first request (20x the median) is no spike.
  const auto set = run({{kRecords, request_records(cold_start_requests())}}, {{"spike_factor", 25.0}});
  EXPECT_NEAR(value(set, "latency.spike_share"), 0.0, 1e-12);
  EXPECT_FALSE(find(set, "latency.spike_start_share"));
}

}  // namespace
}  // namespace cann_debug::plugins
