// profiler_regime: which requests a profiler slowed, found from ProfilerStep#N and the request log's batches.
#include "profiled_requests.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace cann_debug::plugins::inference {
namespace {

// One request per batch every 10 ms, served in `service_ms` (times the profiler's overhead in the profiled
// batches 0..14); the batch after the window waits `stop_ms` for the profiler's stop, and the requests that
// arrive meanwhile queue behind it.
std::vector<Request> head_profiled_log(double service_ms, double overhead, double stop_ms, double first_ms) {
  std::vector<Request> out;
  double free_at = 0.0;
  for (int i = 0; i < 200; ++i) {
    const double arrival = 0.010 * i;
    double ms = i < 15 ? service_ms * overhead : service_ms;
    if (i == 0) ms = first_ms;
    double start = std::max(arrival, free_at);
    if (i == 15) start += stop_ms / 1000.0;
    const double done = start + ms / 1000.0;
    free_at = done;
    Request r;
    r.id = i;
    r.latency_ms = (done - arrival) * 1000.0;
    r.completion_s = 1000.0 + done;
    r.batch_size = 1.0;
    out.push_back(r);
  }
  return out;
}

std::vector<std::int64_t> first_batches(int n) {
  std::vector<std::int64_t> out;
  for (int i = 0; i < n; ++i) out.push_back(i);
  return out;
}

TEST(ProfilerRegime, ProfiledCallsAreReadOverTheProfilersOverhead) {
  const auto log = head_profiled_log(2.0, 3.0, 0.0, 6.0);
  const auto regime = profiler_regime(log, first_batches(15));
  ASSERT_TRUE(regime.applied);
  EXPECT_NEAR(regime.overhead, 3.0, 1e-6);
  EXPECT_EQ(regime.profiled, 15u);
  EXPECT_NEAR(regime.start_ms[1], 2.0, 1e-6);  // 6 ms profiled: a 2 ms call
  EXPECT_NEAR(regime.start_ms[100], 2.0, 1e-6);
}

TEST(ProfilerRegime, TheQueueAfterTheProfilersStopIsLeftOut) {
  // A 45 ms stop: requests 15..19 arrive while it lasts and wait, request 20 still waits 5 ms for the
  // queue (over twice the 2 ms call); request 21 is served on time.
  const auto log = head_profiled_log(2.0, 1.0, 45.0, 2.0);
  const auto regime = profiler_regime(log, first_batches(15));
  ASSERT_TRUE(regime.applied);
  EXPECT_EQ(regime.after_stop, 6u);
  for (int i = 15; i <= 20; ++i) EXPECT_TRUE(std::isnan(regime.start_ms[i])) << i;
  EXPECT_FALSE(std::isnan(regime.start_ms[21]));
}

TEST(ProfilerRegime, AColdFirstCallStandsOutOfTheProfiledCalls) {
  // The first call takes 40 ms (a cold start) inside a window with a 2x overhead: the requests it delays
  // found the server busy, so the overhead is measured on the others and the cold call keeps its size.
  const auto log = head_profiled_log(2.0, 2.0, 0.0, 40.0);
  const auto regime = profiler_regime(log, first_batches(15));
  ASSERT_TRUE(regime.applied);
  EXPECT_NEAR(regime.overhead, 2.0, 1e-6);
  EXPECT_NEAR(regime.start_ms[0] / 2.0, 10.0, 1e-6);  // 20 ms in the regime: 10x a 2 ms call
}

TEST(ProfilerRegime, KnowsWhetherTheProfilerRanFromTheFirstCall) {
  const auto log = head_profiled_log(2.0, 1.0, 0.0, 2.0);
  EXPECT_TRUE(profiler_regime(log, first_batches(15)).first_calls_profiled);
  EXPECT_FALSE(profiler_regime(log, {185, 186, 187, 188, 189, 190}).first_calls_profiled);
  EXPECT_FALSE(profiler_regime(log, {}).first_calls_profiled);
}

TEST(ProfilerRegime, NotAppliedWithoutProfiledBatchesOrBatchSizes) {
  auto log = head_profiled_log(2.0, 3.0, 0.0, 6.0);
  EXPECT_FALSE(profiler_regime(log, {}).applied);
  EXPECT_DOUBLE_EQ(profiler_regime(log, {}).start_ms[1], log[1].latency_ms);
  log[7].batch_size.reset();
  EXPECT_FALSE(profiler_regime(log, first_batches(15)).applied);
  // Batch sizes that do not group requests completing together: not the FIFO batches assumed.
  log = head_profiled_log(2.0, 3.0, 0.0, 6.0);
  log[4].batch_size = 2.0;
  log[5].batch_size = 2.0;
  EXPECT_FALSE(profiler_regime(log, first_batches(15)).applied);
}

}  // namespace
}  // namespace cann_debug::plugins::inference
