// Tests of what the Ascend samplers share: running a tool with a deadline, counters to rates and deltas.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "cann_debug/sampler/counter_points.hpp"
#include "cann_debug/sampler/run_command.hpp"
#include "cann_debug/sampler/slow_readings.hpp"

namespace cann_debug::plugins::sampler_support {
namespace {

using namespace std::chrono_literals;
using ::testing::HasSubstr;

TEST(SlowReadings, FirstSampleThenEveryIntervalWithHalfASampleOfJitterAndZeroMeansAlways) {
  constexpr std::int64_t ms = 1'000'000;
  sampler_support::SlowReadings slow(1000 * ms, 10 * ms);
  std::vector<int> due;
  for (int i = 0; i <= 300; ++i) {
    const std::int64_t jitter = (i % 3 == 0 ? 3 : -2) * ms;  // samples late and early by a few ms
    if (slow.due(i * 10 * ms + jitter)) due.push_back(i);
  }
  EXPECT_EQ(due, (std::vector<int>{0, 100, 200, 300})) << "every 100th sample of 10 ms, not every 101st";
  EXPECT_FALSE(slow.due(300 * 10 * ms + 5 * ms));
  slow.restart();
  EXPECT_TRUE(slow.due(300 * 10 * ms + 6 * ms)) << "a restarted sampler takes them at its first sample";
  sampler_support::SlowReadings always(0, 10 * ms);
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(always.due(i * 10 * ms));
  sampler_support::SlowReadings shorter(5 * ms, 10 * ms);  // slower than the samples: every sample
  for (int i = 0; i < 5; ++i) EXPECT_TRUE(shorter.due(i * 10 * ms));
}

TEST(RunCommand, CapturesStdoutAndExitStatusWithoutAShell) {
  // The argument is not split or expanded: a shell would print "a" and "b" on two lines.
  const auto r = run_command({"printf", "%s|", "a b", "$HOME"}, 5s);
  EXPECT_TRUE(r.started);
  EXPECT_TRUE(r.ok()) << r.error;
  EXPECT_EQ(r.output, "a b|$HOME|");
  const auto failed = run_command({"sh", "-c", "echo out; echo err >&2; exit 3"}, 5s);
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(failed.exit_code, 3);
  EXPECT_EQ(failed.output, "out\n");  // stderr is not captured
}

TEST(RunCommand, KillsAToolThatHangsAtTheDeadline) {
  const auto start = std::chrono::steady_clock::now();
  const auto r = run_command({"sh", "-c", "echo early; sleep 20; echo late"}, 300ms);
  const auto took = std::chrono::steady_clock::now() - start;
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.output, "early\n");
  EXPECT_THAT(r.error, HasSubstr("no answer within 300 ms"));
  EXPECT_LT(took, 5s);
}

TEST(RunCommand, SaysWhyAMissingProgramDidNotRun) {
  const auto r = run_command({"no-such-tool-cann-debug"}, 1s);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.error, HasSubstr("no-such-tool-cann-debug"));
  EXPECT_FALSE(find_executable("no-such-tool-cann-debug"));
  EXPECT_TRUE(find_executable("sh"));
}

MetricPoint proto(TimestampNs t) {
  MetricPoint p;
  p.name = "x.counter";
  p.unit = "count";
  p.key.timestamp_ns = t;
  return p;
}

TEST(CounterPoints, RateAndDeltaFromTheSecondReading) {
  CounterTracker tracker;
  std::vector<MetricPoint> out;
  add_counter_points(out, tracker, "k", 100, 64, proto(0));
  EXPECT_TRUE(out.empty());
  add_counter_points(out, tracker, "k", 700, 64, proto(2'000'000'000));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "x.counter");
  EXPECT_EQ(out[0].unit, "count/s");
  EXPECT_DOUBLE_EQ(out[0].value, 300);
  EXPECT_EQ(out[1].name, "x.counter.delta");
  EXPECT_EQ(out[1].unit, "count");
  EXPECT_DOUBLE_EQ(out[1].value, 600);
}

TEST(CounterPoints, Wrap32CountsAcrossAndResetGivesNothing) {
  CounterTracker tracker;
  std::vector<MetricPoint> out;
  add_counter_points(out, tracker, "k", 4294967290u, 32, proto(0));
  add_counter_points(out, tracker, "k", 100, 32, proto(1'000'000'000));
  ASSERT_EQ(out.size(), 2u);
  EXPECT_DOUBLE_EQ(out[1].value, 106);  // 5 to the top, 1 to wrap to 0, 100 after
  out.clear();
  add_counter_points(out, tracker, "k", 50'000, 32, proto(2'000'000'000));
  add_counter_points(out, tracker, "k", 7, 32, proto(3'000'000'000));  // reset: not near the top before
  EXPECT_EQ(out.size(), 2u);                                           // only the 100 -> 50000 step
  EXPECT_DOUBLE_EQ(out[1].value, 49'900);
}

TEST(CounterPoints, InferredWidthIs32OnlyWhileBothReadingsFit) {
  EXPECT_EQ(infer_counter_width(std::nullopt, 5), 64u);
  EXPECT_EQ(infer_counter_width(4294967290u, 5), 32u);
  EXPECT_EQ(infer_counter_width(5'000'000'000ull, 5), 64u);
}

TEST(SkippedReadings, CountsPerDeviceSourceAndReason) {
  SkippedReadings s;
  EXPECT_TRUE(s.count("0", "f", "r"));
  EXPECT_FALSE(s.count("0", "f", "r"));
  EXPECT_TRUE(s.count("1", "f", "r"));
  std::vector<MetricPoint> out;
  CorrelationKey key;
  key.node_id = "n";
  s.add_points(out, key);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].name, "sampler.skipped_readings");
  EXPECT_EQ(out[0].unit, "count");
  EXPECT_DOUBLE_EQ(out[0].value, 2);
  EXPECT_EQ(out[0].labels.at("device"), "0");
  EXPECT_EQ(out[0].labels.at("source_name"), "f");
  EXPECT_EQ(out[0].labels.at("reason"), "r");
  EXPECT_EQ(out[0].labels.at("node"), "n");
  EXPECT_EQ(s.total(), 3u);
}

}  // namespace
}  // namespace cann_debug::plugins::sampler_support
