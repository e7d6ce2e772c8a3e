// The device side of a rank's trace: GPU kernels assigned to profiled steps, NCCL time, its exposed part,
// compute time, GPU idle time and NCCL kernels per step (docs/features-distributed.md, "On a GPU").
#include <gtest/gtest.h>

#include "device_timeline.hpp"
#include "rank_trace.hpp"
#include "test_events.hpp"

namespace cann_debug::plugins::distributed {
namespace {

using test::device_row;
using test::launch;
using test::span;

constexpr std::int64_t kMsNs = 1000000;
constexpr const char* kAllReduce = "ncclKernel_AllReduce_RING_LL_Sum_float(ncclDevComm*, ncclWorkElem*)";

TEST(DeviceTimeline, NcclTimeExposedPartComputeBusyAndKernelCount) {
  DeviceTimeline d;
  // Step 0..100 ms: compute 0..30 on stream 7, NCCL 20..50 on stream 20 (10 ms under compute), a second
  // NCCL kernel 60..70, a memcpy 80..85 (busy, neither compute nor communication).
  for (const Event& e : {device_row("kernel", "volta_sgemm_128x64_nn", 0, 30000, 7),
                         device_row("kernel", kAllReduce, 20000, 30000, 20),
                         device_row("kernel", "ncclDevKernel_AllGather_RING_LL", 60000, 10000, 20),
                         device_row("gpu_memcpy", "Memcpy DtoH (Device -> Pinned)", 80000, 5000, 8)})
    EXPECT_TRUE(d.add(e));
  ASSERT_TRUE(d.has_kernels());
  const auto steps = d.per_step({{0, 100 * kMsNs}});
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].collective_ns, 40 * kMsNs);
  EXPECT_EQ(steps[0].exposed_collective_ns, 30 * kMsNs);
  EXPECT_EQ(steps[0].compute_ns, 30 * kMsNs);
  EXPECT_EQ(steps[0].busy_ns, 30 * kMsNs + 20 * kMsNs + 10 * kMsNs + 5 * kMsNs);
  EXPECT_EQ(steps[0].collective_kernels, 2);
}

TEST(DeviceTimeline, KernelsBelongToTheStepOfTheirLaunch) {
  DeviceTimeline d;
  // Step A 0..10 ms, step B 10..20 ms. A kernel launched at 9 ms runs 12..15 ms: it is step A's work even
  // though it runs during B. A kernel without a recorded launch counts where it starts (B).
  d.add(launch(41, 9000));
  d.add(device_row("kernel", kAllReduce, 12000, 3000, 20, 41));
  d.add(device_row("kernel", "volta_sgemm_128x64_nn", 16000, 2000, 7, 42));
  d.add(device_row("kernel", "volta_sgemm_128x64_nn", 30000, 2000, 7));  // after every step: left out
  const auto steps = d.per_step({{10 * kMsNs, 20 * kMsNs}, {0, 10 * kMsNs}});
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[1].collective_kernels, 1);  // the windows keep their given order
  EXPECT_EQ(steps[1].collective_ns, 3 * kMsNs);
  EXPECT_EQ(steps[0].collective_kernels, 0);
  EXPECT_EQ(steps[0].compute_ns, 2 * kMsNs);
}

TEST(DeviceTimeline, CpuEventsAndLaunchesWithoutCorrelationAreNotKept) {
  DeviceTimeline d;
  EXPECT_FALSE(d.add(span("nccl:all_reduce", 0, 100)));
  Event no_corr = launch(1, 0);
  no_corr.args = nlohmann::json::object();
  EXPECT_FALSE(d.add(no_corr));
  EXPECT_TRUE(d.add(launch(2, 0)));
  EXPECT_TRUE(d.add(device_row("gpu_memset", "Memset (Device)", 0, 10, 7)));
  EXPECT_FALSE(d.has_kernels());  // memcpy/memset alone do not make a device timeline
}

TEST(RankTraceOnGpu, CollectiveFiguresComeFromTheDeviceNotFromCpuLaunches) {
  RankTrace trace;
  // Step 0..100 ms. The CPU's nccl:all_reduce is an asynchronous 0.1 ms launch outside any model range (the
  // CPU path would call it exposed); on the device the NCCL kernel 20..50 runs 10 ms under compute 0..30.
  for (const Event& e :
       {span("ProfilerStep#4", 0, 100000), span("forward", 0, 2000), span("nccl:all_reduce", 5000, 100),
        launch(7, 1000), launch(8, 5000), device_row("kernel", "volta_sgemm_128x64_nn", 1500, 28500, 7, 7),
        device_row("kernel", kAllReduce, 20000, 30000, 20, 8),
        device_row("gpu_user_annotation", "ProfilerStep#4", 1500, 90000, 7)})
    trace.add(e);
  ASSERT_TRUE(trace.has_device_timeline());
  const auto steps = trace.steps();
  ASSERT_EQ(steps.size(), 1u);  // Kineto's GPU copy of ProfilerStep#4 is not a second step
  const StepBreakdown& s = steps[0];
  EXPECT_TRUE(s.device_timeline);
  EXPECT_EQ(s.step, 4);
  EXPECT_EQ(s.collective_ns, 30 * kMsNs);
  EXPECT_EQ(s.exposed_collective_ns, 20 * kMsNs);
  EXPECT_EQ(s.collective_calls, 1);
  EXPECT_EQ(s.kernel_compute_ns, 28500000);
  EXPECT_EQ(s.compute_ns(), 28500000);
  EXPECT_EQ(s.outside_model_ns, 100 * kMsNs - 48500000);  // GPU idle: step minus busy 1.5..50 ms
  EXPECT_EQ(s.forward_ns, 2 * kMsNs);                     // CPU ranges are still measured
}

TEST(RankTraceOnGpu, TracesWithoutKernelsKeepTheCpuBreakdown) {
  RankTrace trace;
  for (const Event& e : {span("ProfilerStep#1", 0, 10000), span("forward", 0, 2000),
                         span("gloo:all_reduce", 3000, 4000, 2), launch(3, 100)})
    trace.add(e);
  EXPECT_FALSE(trace.has_device_timeline());
  const auto steps = trace.steps();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_FALSE(steps[0].device_timeline);
  EXPECT_EQ(steps[0].collective_ns, 4 * kMsNs);
  EXPECT_EQ(steps[0].exposed_collective_ns, 4 * kMsNs);
}

}  // namespace
}  // namespace cann_debug::plugins::distributed
