// settings.source_threads: shared: one thread polls every source when due; a source whose polls block
// is moved to a thread of its own so the others keep their interval.
#include <gtest/gtest.h>

#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

host::RunReport run_for_one_second(const std::string& yaml) {
  auto registry = good_registry();
  host::Diagnostics diags;
  TempDir dir;
  host::PipelineInputs inputs;
  inputs.variables["tmp"] = dir.path().string();
  auto plan = plan_text(yaml, *registry, diags, inputs);
  EXPECT_TRUE(plan) << diags.to_string();
  if (!plan) return {};
  EXPECT_TRUE(plan->document.shared_source_thread);
  host::RunOptions options;
  options.duration_ns = 1'000'000'000;
  return run_with_deadline(*plan, options);
}

TEST(SharedSourceThread, PollsEverySourceAtItsInterval) {
  const auto report = run_for_one_second(R"(version: 1
settings: { source_threads: shared }
components:
  ticker/a: { interval: 10ms }
  ticker/b: { interval: 10ms }
  ticker/slow: { interval: 50ms }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - ticker/a.out -> collect_sink/out.in
  - ticker/b.out -> collect_sink/out.in
  - ticker/slow.out -> collect_sink/out.in
)");
  EXPECT_TRUE(report.ok);
  // About 100, 100 and 20 in one second; generous bounds for a loaded machine.
  EXPECT_GE(node_stats(report, "ticker/a").emitted, 70u);
  EXPECT_LE(node_stats(report, "ticker/a").emitted, 102u);
  EXPECT_GE(node_stats(report, "ticker/b").emitted, 70u);
  EXPECT_GE(node_stats(report, "ticker/slow").emitted, 14u);
  EXPECT_LE(node_stats(report, "ticker/slow").emitted, 22u);
}

// Sources that finish (readers) end the run: the shared thread does not nap "until the next poll" once
// none is left to poll. No duration: the run must end by itself, well inside the 10 s deadline.
TEST(SharedSourceThread, EndsWhenEverySourceIsDone) {
  auto registry = good_registry();
  TempDir dir;
  auto plan = plan_in(dir, R"(version: 1
settings: { source_threads: shared }
components:
  counter_source/a: { count: 3 }
  counter_source/b: { count: 5 }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - counter_source/a.out -> collect_sink/out.in
  - counter_source/b.out -> collect_sink/out.in
)",
                      *registry);
  ASSERT_TRUE(plan);
  const auto report = run_with_deadline(*plan, {}, 5.0);
  EXPECT_TRUE(report.ok);
  EXPECT_LT(report.seconds, 2.0);
  EXPECT_EQ(read_lines(dir.file("out.jsonl")).size(), 9u);  // 3 + 5 and the flush marker
}

TEST(SharedSourceThread, ASourceWhosePollsBlockGetsAThreadOfItsOwn) {
  // Polls of 30 ms would hold the shared thread for 30 of every 10 ms: ticker/fast would fall to ~33 a
  // second if blocker stayed on it.
  const auto report = run_for_one_second(R"(version: 1
settings: { source_threads: shared }
components:
  ticker/fast: { interval: 10ms }
  ticker/blocker: { interval: 10ms, busy: 30ms }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - ticker/fast.out -> collect_sink/out.in
  - ticker/blocker.out -> collect_sink/out.in
)");
  EXPECT_TRUE(report.ok);
  EXPECT_GE(node_stats(report, "ticker/fast").emitted, 70u);
  EXPECT_GE(node_stats(report, "ticker/blocker").emitted, 20u);  // it still runs, in its own thread
}

}  // namespace
}  // namespace cann_debug::itest
