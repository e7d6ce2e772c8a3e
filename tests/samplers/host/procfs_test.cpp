// Tests of the procfs sampler against fixture /proc trees with values computed by hand
// (see tests/data/procfs/README.md).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "plugin_test_support.hpp"
#include "proc_files.hpp"
#include "procfs.hpp"

namespace cann_debug::plugins {
namespace {

namespace fs = std::filesystem;
using test::data_dir;
using test::TempDir;
using test::write_file;
using testing::Harness;

constexpr TimestampNs kT0 = 1'700'000'000'000'000'000;
constexpr TimestampNs kTwoSeconds = 2'000'000'000;

void install(const char* snapshot, const fs::path& root) {
  fs::copy(data_dir() / "procfs" / snapshot, root,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::optional<MetricPoint> find(const MetricBatch& b, const std::string& name, const Labels& labels = {}) {
  for (const auto& p : b.points)
    if (p.name == name && p.labels == labels) return p;
  return std::nullopt;
}

double value(const MetricBatch& b, const std::string& name, const Labels& labels = {}) {
  auto p = find(b, name, labels);
  if (!p) ADD_FAILURE() << "no point " << name;
  return p ? p->value : -1.0;
}

// Samples t0 then t1 (2 s later on the fake clock); returns the two batches.
std::vector<MetricBatch> sample_t0_t1(const TempDir& root,
                                      nlohmann::json options = nlohmann::json::object()) {
  options["root"] = root.path().string();
  Harness h(procfs_factory(), options);
  h.host.clock_ns = kT0;
  install("t0", root.path());
  h.component().start();
  EXPECT_EQ(h.component().poll(h.out), PollResult::kIdle);
  install("t1", root.path());
  h.host.clock_ns = kT0 + kTwoSeconds;
  EXPECT_EQ(h.component().poll(h.out), PollResult::kIdle);
  h.component().stop();
  return h.outputs_of<MetricBatch>(0);
}

TEST(ProcfsSampler, ManifestIsSound) {
  const auto& m = procfs_factory().manifest();
  EXPECT_THAT(check_manifest(m), ::testing::IsEmpty());
  EXPECT_EQ(m.kind, ComponentKind::kSampler);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].name, "metrics");
  EXPECT_EQ(m.outputs[0].produces, "metric.frame/1");
}

TEST(ProcfsSampler, ProbeMatchesWhetherProcStatIsReadable) {
  const bool readable = std::ifstream("/proc/stat").is_open();
  const Availability a = procfs_factory().probe_with_defaults();
  EXPECT_EQ(a.available, readable) << a.reason;
  if (!a.available) {
    EXPECT_THAT(a.reason, ::testing::HasSubstr("/proc/stat"));
  }
}

TEST(ProcfsSampler, FirstSampleOnlyPrimesCpuButHasMemoryAndLoad) {
  TempDir root("procfs");
  const auto batches = sample_t0_t1(root);
  ASSERT_EQ(batches.size(), 2u);
  const MetricBatch& first = batches[0];
  EXPECT_FALSE(find(first, "host.cpu.utilization", {{"cpu", "all"}}));
  EXPECT_FALSE(find(first, "host.context_switches"));
  EXPECT_DOUBLE_EQ(value(first, "host.memory.total"), 16384000.0 * 1024);
  EXPECT_DOUBLE_EQ(value(first, "host.memory.available"), 12288000.0 * 1024);
  EXPECT_DOUBLE_EQ(value(first, "host.memory.used"), (16384000.0 - 12288000.0) * 1024);
  EXPECT_DOUBLE_EQ(value(first, "host.load.runnable"), 2);  // loadavg, not procs_running (3)
  EXPECT_DOUBLE_EQ(value(first, "host.load.blocked"), 0);
  for (const auto& p : first.points) {
    EXPECT_EQ(p.key.timestamp_ns, kT0);
    EXPECT_EQ(p.key.node_id, "node-a");
  }
}

TEST(ProcfsSampler, CpuRatiosFromTwoSnapshotsMatchHandComputedValues) {
  TempDir root("procfs");
  const auto batches = sample_t0_t1(root);
  ASSERT_EQ(batches.size(), 2u);
  const MetricBatch& b = batches[1];
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.utilization", {{"cpu", "all"}}), 0.525);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.utilization", {{"cpu", "0"}}), 0.85);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.utilization", {{"cpu", "1"}}), 0.2);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.iowait", {{"cpu", "all"}}), 0.025);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.iowait", {{"cpu", "0"}}), 0.05);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.iowait", {{"cpu", "1"}}), 0.0);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.steal", {{"cpu", "all"}}), 0.0275);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.steal", {{"cpu", "0"}}), 0.025);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.steal", {{"cpu", "1"}}), 0.03);
  EXPECT_DOUBLE_EQ(value(b, "host.context_switches"), 1500.0);
  EXPECT_DOUBLE_EQ(value(b, "host.memory.available"), 10240000.0 * 1024);
  EXPECT_DOUBLE_EQ(value(b, "host.memory.used"), (16384000.0 - 10240000.0) * 1024);
  EXPECT_DOUBLE_EQ(value(b, "host.load.runnable"), 4);
  EXPECT_DOUBLE_EQ(value(b, "host.load.blocked"), 1);
  EXPECT_EQ(find(b, "host.cpu.utilization", {{"cpu", "all"}})->unit, "ratio");
  EXPECT_EQ(find(b, "host.memory.used")->unit, "bytes");
  EXPECT_EQ(find(b, "host.context_switches")->unit, "count/s");
  EXPECT_EQ(find(b, "host.load.runnable")->unit, "count");
  EXPECT_EQ(b.points.front().key.timestamp_ns, kT0 + kTwoSeconds);
  EXPECT_DOUBLE_EQ(value(b, "host.cpu.count"), 2);
  EXPECT_EQ(b.points.size(), 9u + 7u);  // 3 ratios x 3 cpus, memory x3, load x2, context switches, cpu count
}

TEST(ProcfsSampler, PerCpuFalseKeepsOnlyTheAggregate) {
  TempDir root("procfs");
  const auto batches = sample_t0_t1(root, {{"per_cpu", false}});
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_DOUBLE_EQ(value(batches[1], "host.cpu.utilization", {{"cpu", "all"}}), 0.525);
  EXPECT_FALSE(find(batches[1], "host.cpu.utilization", {{"cpu", "0"}}));
  EXPECT_FALSE(find(batches[1], "host.cpu.iowait", {{"cpu", "1"}}));
}

TEST(ProcfsSampler, FallsBackToProcsRunningWithoutLoadavg) {
  TempDir root("procfs");
  install("t0", root.path());
  fs::remove(root / "proc" / "loadavg");
  Harness h(procfs_factory(), {{"root", root.path().string()}, {"samples", 1}});
  h.run_source();
  const auto batches = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_DOUBLE_EQ(value(batches[0], "host.load.runnable"), 3);
}

TEST(ProcfsSampler, CounterResetSkipsThatCpuForOneSample) {
  TempDir root("procfs");
  Harness h(procfs_factory(), {{"root", root.path().string()}});
  h.host.clock_ns = kT0;
  install("t1", root.path());
  h.component().start();
  h.component().poll(h.out);
  // cpu1 went back (e.g. hotplugged), so did the aggregate and ctxt; cpu0 advanced by 100 ticks, 50 idle.
  write_file(root / "proc" / "stat",
             "cpu  5750 100 1700 40160 550 50 125 275 100 0\n"
             "cpu0 5650 100 1700 40150 550 50 125 275 100 0\n"
             "cpu1 100 0 0 10 0 0 0 0 0 0\n"
             "ctxt 1000\n");
  h.host.clock_ns += kTwoSeconds;
  h.component().poll(h.out);
  // Then everything advances normally again.
  write_file(root / "proc" / "stat",
             "cpu  5800 100 1700 40310 550 50 125 275 100 0\n"
             "cpu0 5700 100 1700 40200 550 50 125 275 100 0\n"
             "cpu1 100 0 0 110 0 0 0 0 0 0\n"
             "ctxt 1500\n");
  h.host.clock_ns += kTwoSeconds;
  h.component().poll(h.out);
  const auto batches = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_FALSE(find(batches[1], "host.cpu.utilization", {{"cpu", "1"}}));
  EXPECT_FALSE(find(batches[1], "host.cpu.utilization", {{"cpu", "all"}}));
  EXPECT_FALSE(find(batches[1], "host.context_switches"));
  EXPECT_DOUBLE_EQ(value(batches[1], "host.cpu.utilization", {{"cpu", "0"}}), 0.5);
  EXPECT_DOUBLE_EQ(value(batches[2], "host.cpu.utilization", {{"cpu", "1"}}), 0.0);
  EXPECT_DOUBLE_EQ(value(batches[2], "host.cpu.utilization", {{"cpu", "0"}}), 0.5);
  EXPECT_DOUBLE_EQ(value(batches[2], "host.cpu.utilization", {{"cpu", "all"}}), 0.25);
  EXPECT_DOUBLE_EQ(value(batches[2], "host.context_switches"), 250.0);
  for (const auto& b : batches)
    for (const auto& p : b.points)
      if (p.unit == "ratio") {
        EXPECT_TRUE(p.value >= 0.0 && p.value <= 1.0) << p.name << " " << p.value;
      }
}

TEST(ProcfsSampler, StopsAfterSamplesAndAsksForItsInterval) {
  TempDir root("procfs");
  install("t0", root.path());
  Harness h(procfs_factory(), {{"root", root.path().string()}, {"samples", 3}, {"interval", "250ms"}});
  EXPECT_EQ(h.component().idle_interval_ns(), 250'000'000);
  h.component().start();
  EXPECT_EQ(h.component().poll(h.out), PollResult::kIdle);
  EXPECT_EQ(h.component().poll(h.out), PollResult::kIdle);
  EXPECT_EQ(h.component().poll(h.out), PollResult::kDone);
  EXPECT_EQ(h.component().poll(h.out), PollResult::kDone);
  EXPECT_EQ(h.outputs_of<MetricBatch>(0).size(), 3u);
}

TEST(ProcfsSampler, IntervalBelowOneMillisecondIsRefused) {
  EXPECT_THROW(Harness(procfs_factory(), {{"interval", "10us"}}), std::invalid_argument);
}

TEST(ProcfsSampler, MissingProcTreeFailsAtStartNamingTheFile) {
  TempDir root("procfs");
  Harness h(procfs_factory(), {{"root", root.path().string()}});
  try {
    h.component().start();
    FAIL() << "start() did not throw";
  } catch (const std::runtime_error& e) {
    EXPECT_EQ(std::string(e.what()),
              (root / "proc" / "stat").string() + ": cannot open: No such file or directory");
  }
}

TEST(ProcfsSampler, MalformedStatIsAClearError) {
  TempDir root("procfs");
  install("t0", root.path());
  write_file(root / "proc" / "stat", "this is not /proc/stat\n");
  Harness h(procfs_factory(), {{"root", root.path().string()}});
  h.component().start();
  EXPECT_THROW(
      {
        try {
          h.component().poll(h.out);
        } catch (const std::runtime_error& e) {
          EXPECT_THAT(e.what(), ::testing::HasSubstr("expected a 'cpu' line"));
          throw;
        }
      },
      std::runtime_error);
}

TEST(ProcfsSampler, SamplesTheRealProcWhenAvailable) {
  if (!procfs_factory().probe_with_defaults().available) GTEST_SKIP() << "no /proc/stat here";
  Harness h(procfs_factory(), {{"samples", 2}, {"interval", "1ms"}});
  h.run_source();
  const auto batches = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_GT(value(batches[0], "host.memory.total"), 0.0);
}

TEST(ProcFiles, ParsesOldKernelsWithFewerCpuFieldsAndNoMemAvailable) {
  std::istringstream stat("cpu 1 2 3 4\ncpu0 1 2 3 4\n");
  procfs_detail::StatSnapshot s;
  ASSERT_TRUE(procfs_detail::parse_stat(stat, s));
  ASSERT_EQ(s.cpus.size(), 2u);
  EXPECT_EQ(s.cpus[0].first, "all");
  EXPECT_EQ(s.cpus[0].second.idle, 4u);
  EXPECT_EQ(s.cpus[0].second.steal, 0u);
  EXPECT_EQ(s.cpus[0].second.total(), 10u);
  std::istringstream mem("MemTotal: 100 kB\nMemFree: 10 kB\nBuffers: 5 kB\nCached: 20 kB\n");
  EXPECT_EQ(procfs_detail::parse_meminfo(mem).available_or_estimate_kb(), 35u);
  std::istringstream load("0.1 0.2 0.3 12/345 678");
  EXPECT_EQ(procfs_detail::parse_loadavg_runnable(load), 12);
  std::istringstream bad_load("0.1 0.2 0.3 x/345 678");
  EXPECT_EQ(procfs_detail::parse_loadavg_runnable(bad_load), std::nullopt);
}

}  // namespace
}  // namespace cann_debug::plugins
