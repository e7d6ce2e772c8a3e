// A component that throws: the run ends (no hang), the error names the component, the phase and its YAML
// position, the graph is cancelled, and what a sink wrote before the failure stays written.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <oneapi/tbb/task_arena.h>

#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

using ::testing::HasSubstr;

TEST(RunnerErrors, ThrowInProcessNamesTheComponentAndItsLineAndKeepsWrittenData) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 100 }
  throw_on/boom: { at: 10, delay: 100ms }
  collect_sink/out: { path: "${tmp}/collected.jsonl" }
links:
  - counter_source/src.out -> throw_on/boom.in
  - throw_on/boom.out -> collect_sink/out.in
)",
                      *registry, "throwing.yaml");
  ASSERT_TRUE(plan);
  const host::RunReport report = run_with_deadline(*plan, {});

  EXPECT_FALSE(report.ok);
  EXPECT_TRUE(report.cancelled);
  ASSERT_EQ(report.errors.size(), 1u);
  const host::RuntimeError& e = report.errors[0];
  EXPECT_EQ(e.component, "throw_on/boom");
  EXPECT_EQ(e.phase, "process");
  EXPECT_EQ(e.where.file, "throwing.yaml");
  EXPECT_EQ(e.where.line, 4);
  EXPECT_EQ(e.to_string(), "throwing.yaml:4:3: error: throw_on/boom: process failed: boom at message 10");

  // The sink wrote (and flushed) each message it got before the failure: messages 1.. in order, and no
  // more than the 9 that passed throw_on. (It gets 100 ms to take them while throw_on sleeps.)
  const auto lines = read_lines(dir.file("collected.jsonl"));
  const auto sink = node_stats(report, "collect_sink/out");
  EXPECT_EQ(lines.size(), sink.received);
  // With one TBB thread the sink cannot run while throw_on sleeps, so it may have got nothing.
  if (oneapi::tbb::this_task_arena::max_concurrency() >= 2) {
    EXPECT_GE(lines.size(), 1u);
  }
  EXPECT_LE(lines.size(), 9u);
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i], "{\"n\":" + std::to_string(i + 1) + "}");
}

TEST(RunnerErrors, ThrowInPollIsReportedForTheSource) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 100, every: 3 }
  collect_sink/out: { path: "${tmp}/collected.jsonl" }
links:
  - counter_source/src.out -> collect_sink/out.in
)",
                      *registry, "poll.yaml");
  ASSERT_TRUE(plan);
  const host::RunReport report = run_with_deadline(*plan, {});
  EXPECT_FALSE(report.ok);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].component, "counter_source/src");
  EXPECT_EQ(report.errors[0].phase, "poll");
  EXPECT_EQ(report.errors[0].where.line, 3);
  EXPECT_THAT(report.errors[0].message, HasSubstr("failing on poll 3"));
  EXPECT_EQ(node_stats(report, "counter_source/src").emitted, 2u);  // polls 1 and 2 emitted one each
}

TEST(RunnerErrors, ThrowInStartStopsBeforeAnyDataFlows) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  counter_source/src: { count: 5, trace: "${tmp}/trace.txt" }
  collect_sink/out: { path: "${tmp}/no/such/dir/out.jsonl", trace: "${tmp}/trace.txt" }
links:
  - counter_source/src.out -> collect_sink/out.in
)",
                      *registry, "start.yaml");
  ASSERT_TRUE(plan);
  const host::RunReport report = run_with_deadline(*plan, {});
  EXPECT_FALSE(report.ok);
  ASSERT_EQ(report.errors.size(), 1u);
  EXPECT_EQ(report.errors[0].component, "collect_sink/out");
  EXPECT_EQ(report.errors[0].phase, "start");
  EXPECT_EQ(node_stats(report, "counter_source/src").emitted, 0u);
  // The sink starts first (consumers before producers); its failure means the source never starts, and
  // stop() is only called on what started.
  EXPECT_EQ(read_lines(dir.file("trace.txt")), std::vector<std::string>{"start collect_sink/out"});
}

}  // namespace
}  // namespace cann_debug::itest
