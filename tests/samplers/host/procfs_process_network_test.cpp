// Tests of the procfs sampler's process (pid) and network interface metrics against fixture trees
// (tests/data/procfs_host/README.md), including counters rewritten between polls (wrap, reset).
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <unistd.h>

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
using ::testing::HasSubstr;

constexpr TimestampNs kT0 = 1'700'000'000'000'000'000;
constexpr TimestampNs kTwoSeconds = 2'000'000'000;

void install(const char* snapshot, const fs::path& root) {
  for (const char* tree : {"procfs", "procfs_host"})
    fs::copy(data_dir() / tree / snapshot, root,
             fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::optional<MetricPoint> find(const MetricBatch& b, const std::string& name, const Labels& subset) {
  for (const auto& p : b.points) {
    if (p.name != name) continue;
    bool all = true;
    for (const auto& [k, v] : subset) all = all && p.labels.count(k) && p.labels.at(k) == v;
    if (all) return p;
  }
  return std::nullopt;
}

double value(const MetricBatch& b, const std::string& name, const Labels& subset = {}) {
  auto p = find(b, name, subset);
  if (!p) ADD_FAILURE() << "no point " << name;
  return p ? p->value : -1.0;
}

std::size_t count(const MetricBatch& b, std::string_view prefix) {
  std::size_t n = 0;
  for (const auto& p : b.points) n += p.name.rfind(prefix, 0) == 0;
  return n;
}

struct Run {
  std::vector<MetricBatch> batches;
  std::vector<std::pair<LogLevel, std::string>> log;
};

// Samples t0 then t1 (2 s later), optionally changing the tree in between.
Run sample_t0_t1(const TempDir& root, nlohmann::json options, const std::function<void()>& between = {}) {
  options["root"] = root.path().string();
  Harness h(procfs_factory(), options);
  h.host.clock_ns = kT0;
  install("t0", root.path());
  h.component().start();
  h.component().poll(h.out);
  install("t1", root.path());
  if (between) between();
  h.host.clock_ns = kT0 + kTwoSeconds;
  h.component().poll(h.out);
  h.component().stop();
  return {h.outputs_of<MetricBatch>(0), h.host.log.lines};
}

const Labels kProcess = {{"pid", "4242"}, {"process", "python3 (worker) x"}};

TEST(ProcfsProcess, CpuRssAndThreadsOfTheTargetPid) {
  TempDir root("procfs-host");
  const auto run = sample_t0_t1(root, {{"pid", "4242"}});
  ASSERT_EQ(run.batches.size(), 2u);
  const MetricBatch& first = run.batches[0];
  EXPECT_FALSE(find(first, "process.cpu.utilization", kProcess));  // primes
  EXPECT_DOUBLE_EQ(value(first, "process.memory.rss", kProcess), 524288.0 * 1024);
  EXPECT_DOUBLE_EQ(value(first, "process.threads", kProcess), 12);
  const MetricBatch& second = run.batches[1];
  const double ticks = static_cast<double>(::sysconf(_SC_CLK_TCK));
  EXPECT_DOUBLE_EQ(value(second, "process.cpu.utilization", kProcess), 200.0 / ticks / 2.0);
  EXPECT_DOUBLE_EQ(value(second, "process.memory.rss", kProcess), 786432.0 * 1024);
  EXPECT_DOUBLE_EQ(value(second, "process.threads", kProcess), 14);
  EXPECT_EQ(find(second, "process.cpu.utilization", kProcess)->unit, "cores");
  EXPECT_EQ(find(second, "process.memory.rss", kProcess)->unit, "bytes");
  EXPECT_EQ(find(second, "process.threads", kProcess)->unit, "count");
  EXPECT_EQ(find(second, "process.memory.rss", kProcess)->labels.at("source_name"), "VmRSS");
  EXPECT_EQ(count(second, "process."), 3u);
  // The host metrics are still there.
  EXPECT_DOUBLE_EQ(value(second, "host.cpu.utilization", {{"cpu", "all"}}), 0.525);
}

TEST(ProcfsProcess, RssFallsBackToStatmPages) {
  TempDir root("procfs-host");
  const auto run = sample_t0_t1(root, {{"pid", "4242"}}, [&] { fs::remove(root / "proc/4242/status"); });
  ASSERT_EQ(run.batches.size(), 2u);
  const double page = static_cast<double>(::sysconf(_SC_PAGESIZE));
  EXPECT_DOUBLE_EQ(value(run.batches[1], "process.memory.rss", kProcess), 196608.0 * page);
  EXPECT_EQ(find(run.batches[1], "process.memory.rss", kProcess)->labels.at("source_name"), "statm.resident");
}

TEST(ProcfsProcess, ReusedPidStartsItsCpuCounterAfresh) {
  TempDir root("procfs-host");
  const auto run = sample_t0_t1(root, {{"pid", "4242"}}, [&] {
    auto line = test::read_file(root / "proc/4242/stat");
    line.replace(line.find(" 98765 "), 7, " 99999 ");  // another process with the same pid
    write_file(root / "proc/4242/stat", line);
  });
  ASSERT_EQ(run.batches.size(), 2u);
  EXPECT_FALSE(find(run.batches[1], "process.cpu.utilization", kProcess));
  EXPECT_DOUBLE_EQ(value(run.batches[1], "process.threads", kProcess), 14);
}

TEST(ProcfsProcess, ExitedProcessIsNotedOnceAndHostMetricsGoOn) {
  TempDir root("procfs-host");
  Harness h(procfs_factory(), {{"root", root.path().string()}, {"pid", "4242"}});
  install("t0", root.path());
  h.component().start();
  h.component().poll(h.out);
  fs::remove_all(root / "proc/4242");
  h.component().poll(h.out);
  h.component().poll(h.out);
  const auto batches = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(batches.size(), 3u);
  EXPECT_EQ(count(batches[0], "process."), 2u);
  EXPECT_EQ(count(batches[1], "process."), 0u);
  EXPECT_GT(count(batches[2], "host.memory"), 0u);
  int notes = 0;
  for (const auto& [level, line] : h.host.log.lines)
    notes += line.find("proc/4242/stat") != std::string::npos;
  EXPECT_EQ(notes, 1);
}

TEST(ProcfsProcess, SelfFollowsTheSamplingProcess) {
  if (!procfs_factory().probe_with_defaults().available) GTEST_SKIP() << "no /proc here";
  Harness h(procfs_factory(), {{"pid", "self"}, {"samples", 2}, {"interval", "1ms"}, {"network", false}});
  h.run_source();
  const auto batches = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(batches.size(), 2u);
  const Labels me = {{"pid", std::to_string(::getpid())}};
  EXPECT_GT(value(batches[0], "process.memory.rss", me), 0.0);
  EXPECT_GE(value(batches[0], "process.threads", me), 1.0);
  EXPECT_GE(value(batches[1], "process.cpu.utilization", me), 0.0);
}

TEST(ProcfsProcess, PidOptionIsValidatedAndProbedAgainstTheRoot) {
  EXPECT_THROW(Harness(procfs_factory(), {{"pid", "python"}}), std::invalid_argument);
  TempDir root("procfs-host");
  install("t0", root.path());
  Harness ok(procfs_factory(), {{"root", root.path().string()}, {"pid", "4242"}});
  const Availability a = procfs_factory().probe(ok.config());
  EXPECT_TRUE(a.available) << a.reason;
  EXPECT_TRUE(a.reason.empty()) << a.reason;
  Harness gone(procfs_factory(), {{"root", root.path().string()}, {"pid", "999"}});
  const Availability b = procfs_factory().probe(gone.config());
  EXPECT_TRUE(b.available);
  EXPECT_THAT(b.reason, HasSubstr("no process at " + (root / "proc/999").string()));
  TempDir empty("procfs-host");
  Harness none(procfs_factory(), {{"root", empty.path().string()}});
  const Availability c = procfs_factory().probe(none.config());
  EXPECT_FALSE(c.available);
  EXPECT_THAT(c.reason, HasSubstr((empty / "proc/stat").string()));
}

TEST(ProcfsNetwork, RatesPerInterfaceExceptLoopback) {
  TempDir root("procfs-host");
  const auto run = sample_t0_t1(root, nlohmann::json::object());
  ASSERT_EQ(run.batches.size(), 2u);
  EXPECT_EQ(count(run.batches[0], "host.network."), 0u);  // counters prime
  const MetricBatch& b = run.batches[1];
  const Labels eth0 = {{"interface", "eth0"}};
  EXPECT_DOUBLE_EQ(value(b, "host.network.rx_bandwidth", eth0), 1000000.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.tx_bandwidth", eth0), 200000.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.rx_packets", eth0), 1000.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.tx_packets", eth0), 200.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.rx_dropped", eth0), 2.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.tx_dropped", eth0), 0.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.rx_errors", eth0), 1.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.tx_errors", eth0), 0.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.rx_bandwidth", {{"interface", "ib0"}}), 1048576.0);
  EXPECT_DOUBLE_EQ(value(b, "host.network.tx_packets", {{"interface", "ib0"}}), 2000.0);
  EXPECT_FALSE(find(b, "host.network.rx_bandwidth", {{"interface", "lo"}}));
  EXPECT_EQ(count(b, "host.network."), 16u);  // 8 counters x eth0, ib0
  const auto p = *find(b, "host.network.rx_bandwidth", eth0);
  EXPECT_EQ(p.unit, "bytes/s");
  EXPECT_EQ(p.labels, (Labels{{"interface", "eth0"}, {"source_name", "rx_bytes"}}));
  EXPECT_EQ(find(b, "host.network.rx_dropped", eth0)->unit, "count/s");
}

TEST(ProcfsNetwork, InterfacesOptionPicksThemAndNotesMissingOnesOnce) {
  TempDir root("procfs-host");
  const auto run = sample_t0_t1(root, {{"interfaces", {"lo", "wlan9"}}});
  ASSERT_EQ(run.batches.size(), 2u);
  EXPECT_DOUBLE_EQ(value(run.batches[1], "host.network.rx_bandwidth", {{"interface", "lo"}}), 111111.0);
  EXPECT_FALSE(find(run.batches[1], "host.network.rx_bandwidth", {{"interface", "eth0"}}));
  int notes = 0;
  for (const auto& [level, line] : run.log) notes += line.find("'wlan9' not found") != std::string::npos;
  EXPECT_EQ(notes, 1);
}

TEST(ProcfsNetwork, NetworkFalseEmitsNone) {
  TempDir root("procfs-host");
  const auto run = sample_t0_t1(root, {{"network", false}});
  ASSERT_EQ(run.batches.size(), 2u);
  EXPECT_EQ(count(run.batches[1], "host.network."), 0u);
  EXPECT_EQ(run.batches[1].points.size(), 16u);  // as before the network metrics
}

TEST(ProcfsNetwork, CounterWrapIsCountedAndResetIsSkipped) {
  TempDir root("procfs-host");
  install("t0", root.path());
  const fs::path stats = root / "sys/class/net/eth0/statistics";
  Harness h(procfs_factory(), {{"root", root.path().string()}, {"interfaces", {"eth0"}}});
  h.host.clock_ns = kT0;
  h.component().start();
  auto poll = [&](std::uint64_t rx, std::uint64_t tx) {
    write_file(stats / "rx_bytes", std::to_string(rx) + "\n");
    write_file(stats / "tx_bytes", std::to_string(tx) + "\n");
    h.component().poll(h.out);
    h.host.clock_ns += kTwoSeconds;
  };
  poll(18446744073709551000ull, 900000);  // rx near the top of 64 bits
  poll(385, 900400);                      // rx wrapped: 615 + 385 + 1 = 1001 bytes; tx +400
  poll(1385, 100);                        // tx reset (cleared): no tx rate this sample
  poll(2385, 300);                        // tx counts again from its new base
  const auto b = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(b.size(), 4u);
  const Labels eth0 = {{"interface", "eth0"}};
  EXPECT_DOUBLE_EQ(value(b[1], "host.network.rx_bandwidth", eth0), 1001.0 / 2);
  EXPECT_DOUBLE_EQ(value(b[1], "host.network.tx_bandwidth", eth0), 200.0);
  EXPECT_DOUBLE_EQ(value(b[2], "host.network.rx_bandwidth", eth0), 500.0);
  EXPECT_FALSE(find(b[2], "host.network.tx_bandwidth", eth0));
  EXPECT_DOUBLE_EQ(value(b[3], "host.network.tx_bandwidth", eth0), 100.0);
  EXPECT_DOUBLE_EQ(value(b[3], "host.network.rx_bandwidth", eth0), 500.0);
}

TEST(ProcfsNetwork, DroppedAndErrorCountersAtMostOncePerSlowInterval) {
  TempDir root("procfs-host");
  install("t0", root.path());
  const fs::path stats = root / "sys/class/net/eth0/statistics";
  Harness h(procfs_factory(), {{"root", root.path().string()},
                               {"interfaces", {"eth0"}},
                               {"interval", "10ms"},
                               {"slow_interval", "50ms"}});
  h.host.clock_ns = kT0;
  h.component().start();
  for (int i = 0; i <= 10; ++i) {
    write_file(stats / "rx_bytes", std::to_string(1000 + 100 * i) + "\n");
    write_file(stats / "rx_dropped", std::to_string(7 + i) + "\n");
    h.component().poll(h.out);
    h.host.clock_ns += 10'000'000;
  }
  const auto b = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(b.size(), 11u);
  const Labels eth0 = {{"interface", "eth0"}};
  std::vector<int> dropped;
  for (int i = 0; i <= 10; ++i) {
    if (i > 0) {
      EXPECT_DOUBLE_EQ(value(b[i], "host.network.rx_bandwidth", eth0), 100 / 0.01) << i;
    }
    if (find(b[i], "host.network.rx_dropped", eth0)) dropped.push_back(i);
  }
  EXPECT_EQ(dropped, (std::vector<int>{5, 10}));
  EXPECT_DOUBLE_EQ(value(b[10], "host.network.rx_dropped", eth0), 5 / 0.05);  // 5 drops in 50 ms
}

TEST(ProcfsNetwork, InterfaceThatWentAwayIsCheckedAtTheRelistAndStartsAfreshWhenBack) {
  TempDir root("procfs-host");
  install("t0", root.path());
  const fs::path eth0_dir = root / "sys/class/net/eth0";
  const fs::path stats = eth0_dir / "statistics";
  Harness h(procfs_factory(), {{"root", root.path().string()}, {"interfaces", {"eth0"}}});
  h.host.clock_ns = kT0;
  h.component().start();
  auto poll = [&] {
    h.component().poll(h.out);
    h.host.clock_ns += kTwoSeconds;
  };
  write_file(stats / "rx_bytes", "1000000\n");
  poll();  // t0: primes
  write_file(stats / "rx_bytes", "1002000\n");
  poll();  // t0 + 2 s: 1000 bytes/s
  fs::remove_all(eth0_dir);
  poll();  // t0 + 4 s: its files are kept open; the interface is checked again at the 5 s re-list
  poll();  // t0 + 6 s: found gone, its counters forgotten
  write_file(stats / "rx_bytes", "500\n");  // re-created, counting from zero again
  for (const char* c :
       {"tx_bytes", "rx_packets", "tx_packets", "rx_dropped", "tx_dropped", "rx_errors", "tx_errors"})
    write_file(stats / c, "0\n");
  poll();  // t0 + 8 s: primes afresh (no rate from 1002000 down to 500)
  write_file(stats / "rx_bytes", "2500\n");
  poll();  // t0 + 10 s: 1000 bytes/s from the new base
  const auto b = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(b.size(), 6u);
  const Labels eth0 = {{"interface", "eth0"}};
  EXPECT_DOUBLE_EQ(value(b[1], "host.network.rx_bandwidth", eth0), 1000.0);
  EXPECT_FALSE(find(b[3], "host.network.rx_bandwidth", eth0));
  EXPECT_FALSE(find(b[4], "host.network.rx_bandwidth", eth0));
  EXPECT_DOUBLE_EQ(value(b[5], "host.network.rx_bandwidth", eth0), 1000.0);
  int notes = 0;
  for (const auto& [level, line] : h.host.log.lines)
    notes += line.find("'eth0' not found") != std::string::npos;
  EXPECT_EQ(notes, 1);
}

TEST(ProcFiles, PidStatWithBlanksAndParenthesesInComm) {
  const auto s = procfs_detail::parse_pid_stat(
      "77 (a) b) (c) R 1 77 77 0 -1 0 0 0 0 0 11 22 0 0 20 0 3 0 444 0 0 18446744073709551615");
  ASSERT_TRUE(s);
  EXPECT_EQ(s->pid, 77);
  EXPECT_EQ(s->comm, "a) b) (c");
  EXPECT_EQ(s->utime, 11u);
  EXPECT_EQ(s->stime, 22u);
  EXPECT_EQ(s->num_threads, 3);
  EXPECT_EQ(s->starttime, 444u);
  EXPECT_FALSE(procfs_detail::parse_pid_stat("77 (short) R 1 2 3"));
  std::istringstream status("Name:\tx\nVmRSSX:\t1 kB\nVmRSS:\t  2200 kB\n");
  EXPECT_EQ(procfs_detail::parse_status_field(status, "VmRSS"), 2200u);
  std::istringstream statm("765 418 390 5 0 123 0\n");
  EXPECT_EQ(procfs_detail::parse_statm_resident_pages(statm), 418u);
}

}  // namespace
}  // namespace cann_debug::plugins
