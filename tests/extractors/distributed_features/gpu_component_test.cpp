// The distributed_features component on GPU ranks (Kineto events with device kernels): the communication
// features come from the NCCL kernels, not from the CPU's asynchronous launches.
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "distributed_features.hpp"
#include "test_events.hpp"

namespace cann_debug::plugins {
namespace {

using distributed::test::device_row;
using distributed::test::launch;
using distributed::test::span;
using nlohmann::json;

constexpr std::size_t kGpuEvents = 1;
constexpr const char* kAllReduce = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ncclWorkElem*)";

// One 100 ms step of a DDP rank on a GPU (times in ms from the step start): host data loading for
// `loading` ms, forward kernel loading+1 .. +11, backward the next 20 ms, the NCCL allreduce on stream 20
// from `nccl_start` to 76 ms, optimizer kernel 76..80. The CPU's nccl:all_reduce is a 0.1 ms launch.
std::vector<Event> gpu_step(std::int64_t step, std::int64_t rank, std::int64_t loading,
                            std::int64_t nccl_start) {
  const std::int64_t t0 = (step - 1) * 100000;
  const std::int64_t fw = t0 + (loading + 1) * 1000;
  std::vector<Event> e{span("ProfilerStep#" + std::to_string(step), t0, 100000, 1, rank)};
  if (loading > 0) e.push_back(span("data_loading", t0, loading * 1000, 1, rank));
  e.push_back(span("nccl:all_reduce", fw + 9000, 100, 1, rank));
  struct K {
    const char* name;
    std::int64_t stream, start, end;
  };
  const K kernels[] = {{"volta_sgemm_128x64_nn", 7, fw, fw + 10000},
                       {"volta_sgemm_64x64_nt", 7, fw + 10000, fw + 30000},
                       {kAllReduce, 20, t0 + nccl_start * 1000, t0 + 76000},
                       {"multi_tensor_apply_kernel", 7, t0 + 76000, t0 + 80000}};
  std::int64_t corr = step * 100;
  for (const K& k : kernels) {
    e.push_back(launch(corr, k.start - 500, rank));
    e.push_back(device_row("kernel", k.name, k.start, k.end - k.start, k.stream, corr, rank));
    ++corr;
  }
  return e;
}

// One rank's three steps. By default the straggler run_gpu: rank 1 loads data for 40 ms; rank 0's allreduce
// kernel starts at 21 ms and waits for it until 71 ms.
Envelope gpu_rank(std::int64_t rank, std::string reader = "", std::int64_t loading = -1,
                  std::int64_t nccl_start = -1) {
  if (loading < 0) loading = rank == 0 ? 0 : 40;
  if (nccl_start < 0) nccl_start = rank == 0 ? 21 : 61;
  EventBatch b;
  b.source_path = "rank-" + std::to_string(rank) + ".pt.trace.json";
  for (std::int64_t step = 1; step <= 3; ++step)
    for (Event& ev : gpu_step(step, rank, loading, nccl_start)) b.events.push_back(ev);
  Envelope env = Envelope::make(CorrelationKey{}, std::move(b));
  env.set_source(reader);
  return env;
}

struct GpuRun {
  std::vector<FeatureSet> sets;
  std::optional<Feature> get(const std::string& name) const {
    for (const Feature& f : sets.back().features)
      if (f.name == name) return f;
    return std::nullopt;
  }
  double value(const std::string& name) const {
    const auto f = get(name);
    EXPECT_TRUE(f.has_value()) << "missing feature " << name;
    return f ? f->value : -1.0;
  }
  double rank_value(std::size_t set, const std::string& name) const {
    for (const Feature& f : sets.at(set).features)
      if (f.name == name) return f.value;
    ADD_FAILURE() << "missing rank feature " << name;
    return -1.0;
  }
};

GpuRun run_gpu(const std::vector<std::pair<std::size_t, Envelope>>& inputs) {
  testing::Harness h(distributed_features_factory(), json::object());
  h.run_processor(inputs);
  return {h.outputs_of<FeatureSet>(0)};
}

TEST(DistributedFeaturesOnGpu, CommunicationFiguresComeFromNcclKernels) {
  const GpuRun out = run_gpu({{kGpuEvents, gpu_rank(0)}, {kGpuEvents, gpu_rank(1)}});
  ASSERT_EQ(out.sets.size(), 3u);
  EXPECT_EQ(out.value("rank.device_timeline_count"), 2.0);
  // NCCL kernel time per step: rank 0 21..76 = 55 ms, rank 1 61..76 = 15 ms.
  EXPECT_NEAR(out.rank_value(0, "rank.collective_time"), 55.0, 1e-9);
  EXPECT_NEAR(out.rank_value(1, "rank.collective_time"), 15.0, 1e-9);
  // Exposed = not under compute kernels: rank 0 31..76 = 45 ms, rank 1 71..76 = 5 ms.
  EXPECT_NEAR(out.rank_value(0, "rank.exposed_collective_time"), 45.0, 1e-9);
  EXPECT_NEAR(out.rank_value(1, "rank.exposed_collective_time"), 5.0, 1e-9);
  // HTA's exposed share, waits included: (45 + 5) / (55 + 15).
  EXPECT_NEAR(out.value("comm.exposed_ratio_with_waits"), 50.0 / 70.0, 1e-9);
  // Without rank 0's 40 ms wait for rank 1: transfers 15 + 15 ms, exposed (45 - 40) + 5 ms.
  EXPECT_NEAR(out.value("comm.exposed_ratio"), 10.0 / 30.0, 1e-9);
  EXPECT_NEAR(out.value("comm.exposed_step_share"), 50.0 / 200.0, 1e-9);
  EXPECT_EQ(out.value("comm.collectives_per_step"), 1.0);  // one NCCL kernel per step, not the CPU ranges
  EXPECT_NEAR(out.rank_value(0, "rank.kernel_compute_time"), 34.0, 1e-9);
}

TEST(DistributedFeaturesOnGpu, IdleGpuAndShortNcclKernelsNameTheStraggler) {
  const GpuRun out = run_gpu({{kGpuEvents, gpu_rank(0)}, {kGpuEvents, gpu_rank(1)}});
  // GPU idle per step: rank 0 100 - 79 (1..80 busy) = 21 ms, rank 1 100 - 39 (41..80) = 61 ms.
  EXPECT_NEAR(out.rank_value(0, "rank.outside_model_time"), 21.0, 1e-9);
  EXPECT_NEAR(out.rank_value(1, "rank.outside_model_time"), 61.0, 1e-9);
  EXPECT_NEAR(out.value("rank.outside_model_skew"), 40.0 / 100.0, 1e-9);
  // The rank whose NCCL kernel is shortest arrived last: rank 0 waited 55 - 15 ms for it.
  EXPECT_EQ(out.value("rank.late_rank"), 1.0);
  EXPECT_NEAR(out.value("rank.collective_wait_skew"), 40.0 / 100.0, 1e-9);
  EXPECT_NEAR(out.value("rank.compute_imbalance"), 1.0, 1e-9);  // same compute kernels on both ranks
}

TEST(DistributedFeaturesOnGpu, AllreduceAfterTheLastComputeKernelIsExposed) {
  // No straggler: both ranks run_gpu compute 1..31 ms and only then the allreduce, 31..76 ms.
  const GpuRun out = run_gpu({{kGpuEvents, gpu_rank(0, "", 0, 31)}, {kGpuEvents, gpu_rank(1, "", 0, 31)}});
  EXPECT_NEAR(out.value("comm.exposed_ratio"), 1.0, 1e-9);
  EXPECT_NEAR(out.value("comm.exposed_ratio_with_waits"), 1.0, 1e-9);
  EXPECT_NEAR(out.value("rank.collective_wait_skew"), 0.0, 1e-9);
  EXPECT_NEAR(out.value("rank.outside_model_skew"), 0.0, 1e-9);
}

TEST(DistributedFeaturesOnGpu, OneGpuRankHasNoWaitToTakeOut) {
  const GpuRun out = run_gpu({{kGpuEvents, gpu_rank(0)}});
  EXPECT_NEAR(out.value("comm.exposed_ratio"), 45.0 / 55.0, 1e-9);
  EXPECT_FALSE(out.get("rank.collective_wait_skew").has_value());
}

TEST(DistributedFeaturesOnGpu, AFileDeliveredByTwoReadersCountsOnce) {
  const GpuRun once = run_gpu(
      {{kGpuEvents, gpu_rank(0, "chrome_trace/ranks")}, {kGpuEvents, gpu_rank(1, "chrome_trace/ranks")}});
  const GpuRun twice = run_gpu({{kGpuEvents, gpu_rank(0, "chrome_trace/ranks")},
                                {kGpuEvents, gpu_rank(0, "chrome_trace/kineto")},
                                {kGpuEvents, gpu_rank(1, "chrome_trace/kineto")},
                                {kGpuEvents, gpu_rank(1, "chrome_trace/ranks")}});
  for (const char* name : {"comm.exposed_ratio", "comm.collectives_per_step", "rank.collective_wait_skew",
                           "rank.outside_model_skew", "step.time"})
    EXPECT_DOUBLE_EQ(twice.value(name), once.value(name)) << name;
  EXPECT_NEAR(twice.rank_value(0, "rank.collective_time"), 55.0, 1e-9);
}

}  // namespace
}  // namespace cann_debug::plugins
