// The runner's per-node error policy (`on_error: cancel | drain | skip`) and its port taps: a source that
// fails under `drain` keeps what it delivered and the rest of the graph runs to its end; `skip` drops only
// the message that failed; taps see every message a port emits, linked or not.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <mutex>

#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

using ::testing::Contains;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(RunnerPolicy, DrainedSourceKeepsWhatItDeliveredAndTheOthersRunToTheEnd) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/bad: { count: 100, every: 3, on_error: drain }
  counter_source/good: { count: 5 }
  collect_sink/out: { path: "${tmp}/out.jsonl", trace: "${tmp}/trace.txt" }
links:
  - counter_source/bad.out -> collect_sink/out.in
  - counter_source/good.out -> collect_sink/out.in
)",
                      *registry, "policy.yaml");
  ASSERT_TRUE(plan);
  const host::RunReport report = run_with_deadline(*plan, {});
  EXPECT_TRUE(report.ok);
  EXPECT_FALSE(report.cancelled);
  ASSERT_EQ(report.errors.size(), 1u);
  const auto& e = report.errors[0];
  EXPECT_TRUE(e.contained);
  EXPECT_EQ(e.component, "counter_source/bad");
  EXPECT_EQ(e.phase, "poll");
  EXPECT_EQ(e.to_string(),
            "policy.yaml:3:3: warning: counter_source/bad: poll failed: counter_source: failing on poll 3 "
            "(on_error: drain: it stopped, the run went on)");
  // Two from the failing source (polls 1 and 2), five from the other, then the sink's flush marker.
  const auto lines = read_lines(dir.file("out.jsonl"));
  ASSERT_EQ(lines.size(), 8u);
  EXPECT_EQ(lines.back(), "#flush");
  EXPECT_THAT(read_lines(dir.file("trace.txt")), Contains("flush collect_sink/out"));
}

TEST(RunnerPolicy, SkipDropsOnlyTheMessageThatFailed) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 20 }
  throw_on/boom: { at: 5, on_error: skip }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - counter_source/src.out -> throw_on/boom.in
  - throw_on/boom.out -> collect_sink/out.in
)",
                      *registry, "policy.yaml");
  ASSERT_TRUE(plan);
  const host::RunReport report = run_with_deadline(*plan, {});
  EXPECT_TRUE(report.ok);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_THAT(report.errors[0].to_string(), HasSubstr("warning: throw_on/boom: process failed: boom at "
                                                      "message 5 (on_error: skip: the message was dropped)"));
  const auto lines = read_lines(dir.file("out.jsonl"));
  ASSERT_EQ(lines.size(), 20u);  // 19 messages and the flush marker
  EXPECT_THAT(lines, Not(Contains("{\"n\":5}")));
  EXPECT_EQ(lines[18], "{\"n\":20}");
  EXPECT_EQ(lines[19], "#flush");
}

TEST(RunnerPolicy, DrainedConsumerStopsTakingInputAndIsNotFlushed) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 20 }
  throw_on/boom: { at: 5, on_error: drain, trace: "${tmp}/trace.txt" }
  collect_sink/out: { path: "${tmp}/out.jsonl", trace: "${tmp}/trace.txt" }
links:
  - counter_source/src.out -> throw_on/boom.in
  - throw_on/boom.out -> collect_sink/out.in
)",
                      *registry, "policy.yaml");
  ASSERT_TRUE(plan);
  const host::RunReport report = run_with_deadline(*plan, {});
  EXPECT_TRUE(report.ok);
  EXPECT_EQ(read_lines(dir.file("out.jsonl")),
            (std::vector<std::string>{"{\"n\":1}", "{\"n\":2}", "{\"n\":3}", "{\"n\":4}", "#flush"}));
  EXPECT_EQ(node_stats(report, "counter_source/src").emitted, 20u);  // the source was not held back
  const auto trace = read_lines(dir.file("trace.txt"));
  EXPECT_THAT(trace, Contains("flush collect_sink/out"));
  EXPECT_THAT(trace, Not(Contains("flush throw_on/boom")));
  EXPECT_THAT(trace, Contains("stop throw_on/boom"));  // it started, so it is stopped
}

TEST(RunnerPolicy, DrainedStartFailureLeavesTheRestRunning) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 3 }
  collect_sink/broken: { path: "${tmp}/no/such/dir/x.jsonl", on_error: drain }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - counter_source/src.out -> collect_sink/broken.in
  - counter_source/src.out -> collect_sink/out.in
)",
                      *registry, "policy.yaml");
  ASSERT_TRUE(plan);
  const host::RunReport report = run_with_deadline(*plan, {});
  EXPECT_TRUE(report.ok);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].phase, "start");
  EXPECT_EQ(read_lines(dir.file("out.jsonl")).size(), 4u);  // 3 messages and the flush marker
}

TEST(RunnerPolicy, AnUnknownPolicyIsAPlanErrorAtItsValue) {
  auto registry = good_registry();
  host::Diagnostics diags;
  auto plan = plan_text("version: 1\ncomponents:\n  counter_source/src: { count: 3, on_error: sometimes }\n",
                        *registry, diags, {}, "p.yaml");
  EXPECT_FALSE(plan);
  EXPECT_THAT(diags.to_string(),
              HasSubstr("p.yaml:3:45: error: counter_source/src: on_error: expected cancel, drain or skip, "
                        "found \"sometimes\""));
}

TEST(RunnerTaps, SeeEveryMessageOfLinkedAndUnlinkedPortsInOrder) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 10 }
  passthrough/p: {}
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - counter_source/src.out -> passthrough/p.in
  - counter_source/src.out -> collect_sink/out.in
)",
                      *registry, "policy.yaml");
  ASSERT_TRUE(plan);
  host::RunOptions options;
  options.taps = {{"counter_source/src", "out"}, {"passthrough/p", "out"}};
  std::vector<std::vector<std::int64_t>> seen(2);
  options.on_tap = [&](std::size_t tap, const Envelope& e) {
    seen.at(tap).push_back(e.as<JsonMessage>().value.at("n").get<std::int64_t>());
  };
  const host::RunReport report = run_with_deadline(*plan, options);
  ASSERT_TRUE(report.ok);
  const std::vector<std::int64_t> one_to_ten = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10};
  EXPECT_EQ(seen[0], one_to_ten);
  EXPECT_EQ(seen[1], one_to_ten);                            // passthrough/p.out is linked to nothing
  EXPECT_EQ(read_lines(dir.file("out.jsonl")).size(), 11u);  // and the flush marker
}

TEST(RunnerTaps, ATapOnAMissingPortFailsTheRunBeforeItStarts) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 10, trace: "${tmp}/trace.txt" }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - counter_source/src.out -> collect_sink/out.in
)",
                      *registry, "policy.yaml");
  ASSERT_TRUE(plan);
  host::RunOptions options;
  options.taps = {{"counter_source/src", "nope"}};
  options.on_tap = [](std::size_t, const Envelope&) {};
  const host::RunReport report = run_with_deadline(*plan, options);
  EXPECT_FALSE(report.ok);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].phase, "tap");
  EXPECT_THAT(report.errors[0].message,
              HasSubstr("'counter_source/src' has no output port 'nope' (outputs: out, metrics, frames)"));
  EXPECT_TRUE(read_lines(dir.file("trace.txt")).empty());  // nothing started
}

TEST(RunnerTaps, ATapThatThrowsFailsTheEmittingComponent) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 10 }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - counter_source/src.out -> collect_sink/out.in
)",
                      *registry, "policy.yaml");
  ASSERT_TRUE(plan);
  host::RunOptions options;
  options.taps = {{"counter_source/src", "out"}};
  options.on_tap = [](std::size_t, const Envelope& e) {
    if (e.as<JsonMessage>().value.at("n") == 4) throw std::runtime_error("tap refused message 4");
  };
  const host::RunReport report = run_with_deadline(*plan, options);
  EXPECT_FALSE(report.ok);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].component, "counter_source/src");
  EXPECT_THAT(report.errors[0].message, HasSubstr("tap refused message 4"));
}

}  // namespace
}  // namespace cann_debug::itest
