// Ctrl-C: a first interrupt stops the sources and drains (everything emitted reaches the sink, which
// flushes); a second one cancels at once; RunOptions::duration stops sources the same way as the first.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>
#include <thread>

#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

using namespace std::chrono_literals;

/// Sets `flag` to `level` once `path` has at least `lines` lines (or after 5 s).
std::thread interrupt_when(std::atomic<int>& flag, int level, std::string path, std::size_t lines) {
  return std::thread([&flag, level, path = std::move(path), lines] {
    auto give_up = std::chrono::steady_clock::now() + 5s;
    while (read_lines(path).size() < lines && std::chrono::steady_clock::now() < give_up)
      std::this_thread::sleep_for(2ms);
    flag.store(level);
  });
}

TEST(RunnerInterrupt, FirstInterruptStopsTheSamplerAndDrainsEverythingItEmitted) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  ticker/t: { interval: 2ms }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - ticker/t.out -> collect_sink/out.in
)",
                      *registry);
  ASSERT_TRUE(plan);
  std::atomic<int> interrupt{0};
  host::RunOptions options;
  options.interrupt = &interrupt;
  std::thread stopper = interrupt_when(interrupt, 1, dir.file("out.jsonl"), 5);
  const host::RunReport report = run_with_deadline(*plan, options);
  stopper.join();

  EXPECT_TRUE(report.ok);
  EXPECT_TRUE(report.interrupted);
  EXPECT_FALSE(report.cancelled);
  auto lines = read_lines(dir.file("out.jsonl"));
  ASSERT_GE(lines.size(), 6u);
  EXPECT_EQ(lines.back(), "#flush");  // the sink was flushed after the stop
  lines.pop_back();
  EXPECT_EQ(lines.size(), node_stats(report, "ticker/t").emitted);  // nothing emitted was lost
  EXPECT_EQ(lines.size(), node_stats(report, "collect_sink/out").received);
  for (std::size_t i = 0; i < lines.size(); ++i) EXPECT_EQ(lines[i], "{\"n\":" + std::to_string(i + 1) + "}");
}

TEST(RunnerInterrupt, SecondInterruptCancelsWithoutDrainingASlowQueue) {
  TempDir dir;
  auto registry = good_registry();
  // 64 queued messages at 200 ms each would take 13 s to drain.
  auto plan = plan_in(dir, R"(version: 1
settings: { queue_capacity: 64 }
components:
  counter_source/src: { count: 1000 }
  slow_sink/sink: { delay: 200ms }
  collect_sink/seen: { path: "${tmp}/seen.jsonl" }
links:
  - counter_source/src.out -> slow_sink/sink.in
  - counter_source/src.out -> collect_sink/seen.in
)",
                      *registry);
  ASSERT_TRUE(plan);
  std::atomic<int> interrupt{0};
  host::RunOptions options;
  options.interrupt = &interrupt;
  std::thread stopper = interrupt_when(interrupt, 2, dir.file("seen.jsonl"), 10);
  const auto t0 = std::chrono::steady_clock::now();
  const host::RunReport report = run_with_deadline(*plan, options, 20.0);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  stopper.join();

  EXPECT_TRUE(report.interrupted);
  EXPECT_TRUE(report.cancelled);
  EXPECT_LT(seconds, 3.0);
  EXPECT_LT(node_stats(report, "slow_sink/sink").received, 20u);
}

TEST(RunnerInterrupt, DurationStopsTheSamplerAndDrains) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, R"(version: 1
components:
  ticker/t: { interval: 1ms }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - ticker/t.out -> collect_sink/out.in
)",
                      *registry);
  ASSERT_TRUE(plan);
  host::RunOptions options;
  options.duration_ns = 100'000'000;
  const host::RunReport report = run_with_deadline(*plan, options);
  EXPECT_TRUE(report.ok);
  EXPECT_FALSE(report.interrupted);
  EXPECT_GE(report.seconds, 0.1);
  EXPECT_LT(report.seconds, 2.0);
  auto lines = read_lines(dir.file("out.jsonl"));
  ASSERT_FALSE(lines.empty());
  EXPECT_EQ(lines.back(), "#flush");
  EXPECT_EQ(lines.size() - 1, node_stats(report, "ticker/t").emitted);
}

}  // namespace
}  // namespace cann_debug::itest

namespace cann_debug::itest {
namespace {

/// Voluntary context switches of every thread of this process so far (threads that ended are not counted).
long voluntary_switches() {
  long total = 0;
  std::error_code ec;
  for (const auto& task : std::filesystem::directory_iterator("/proc/self/task", ec)) {
    for (const auto& line : read_lines((task.path() / "status").string()))
      if (line.rfind("voluntary_ctxt_switches:", 0) == 0) total += std::stol(line.substr(24));
  }
  return total;
}

struct Pipe {
  int fds[2] = {-1, -1};
  Pipe() { EXPECT_EQ(::pipe(fds), 0); }
  ~Pipe() {
    for (int fd : fds)
      if (fd >= 0) ::close(fd);
  }
};

const char* kSlowTicker = R"(version: 1
components:
  ticker/t: { interval: 30s }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - ticker/t.out -> collect_sink/out.in
)";

TEST(RunnerInterrupt, InterruptDescriptorEndsALongNapAtOnce) {
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, kSlowTicker, *registry);
  ASSERT_TRUE(plan);
  Pipe pipe;
  std::atomic<int> interrupt{0};
  host::RunOptions options;
  options.interrupt = &interrupt;
  options.interrupt_fd = pipe.fds[0];
  std::thread stopper([&] {
    std::this_thread::sleep_for(200ms);
    interrupt.store(1);  // what the signal handler does: raise the flag, then write to the pipe
    ASSERT_EQ(::write(pipe.fds[1], "x", 1), 1);
  });
  const host::RunReport report = run_with_deadline(*plan, options);
  stopper.join();
  EXPECT_TRUE(report.ok);
  EXPECT_TRUE(report.interrupted);
  EXPECT_LT(report.seconds, 2.0) << "the 30 s nap must end when the descriptor becomes readable";
  EXPECT_EQ(read_lines(dir.file("out.jsonl")).back(), "#flush");
}

TEST(RunnerInterrupt, SourcesNapTheirWholeIntervalWhenTheyCanBeWoken) {
  if (!std::filesystem::exists("/proc/self/task")) GTEST_SKIP() << "no /proc here";
  TempDir dir;
  auto registry = good_registry();
  auto plan = plan_in(dir, kSlowTicker, *registry);
  ASSERT_TRUE(plan);
  std::atomic<int> interrupt{0};
  // Counted while the run is on (its source thread ends with it), over 800 ms of a 1.2 s run.
  auto switches_while_running = [&](int interrupt_fd) {
    host::RunOptions options;
    options.interrupt = &interrupt;
    options.interrupt_fd = interrupt_fd;
    options.duration_ns = 1'200'000'000;
    host::RunReport report;
    std::thread run([&] { report = run_with_deadline(*plan, options); });
    std::this_thread::sleep_for(200ms);
    const long before = voluntary_switches();
    std::this_thread::sleep_for(800ms);
    const long during = voluntary_switches() - before;
    run.join();
    EXPECT_TRUE(report.ok);
    return during;
  };
  Pipe pipe;
  const long woken = switches_while_running(pipe.fds[0]);
  const long polling = switches_while_running(-1);
  // Without a descriptor the source looks at the interrupt flag every 20 ms (about 40 wake-ups in the
  // 800 ms); with one it sleeps until the deadline.
  EXPECT_LT(woken, 15) << "polling without a descriptor: " << polling;
  EXPECT_GT(polling, woken + 20);
}

}  // namespace
}  // namespace cann_debug::itest
