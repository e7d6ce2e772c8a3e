// Tests of the ddr sampler against fixture trees (tests/data/ddr/README.md): resctrl MBM rates with
// "Unavailable", wrap and reset; /proc/meminfo usage; uncore IMC discovery and event encoding; back-end
// selection and probe reasons.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "ddr.hpp"
#include "meminfo_usage.hpp"
#include "perf_imc.hpp"
#include "plugin_test_support.hpp"

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
  fs::copy(data_dir() / "ddr" / snapshot, root,
           fs::copy_options::recursive | fs::copy_options::overwrite_existing);
}

std::optional<MetricPoint> find(const MetricBatch& b, const std::string& name, const Labels& subset = {}) {
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

nlohmann::json opts(const TempDir& root, nlohmann::json backends) {
  return {{"root", root.path().string()}, {"backends", std::move(backends)}};
}

TEST(DdrSampler, ManifestIsSound) {
  const auto& m = ddr_factory().manifest();
  EXPECT_THAT(check_manifest(m), ::testing::IsEmpty());
  EXPECT_EQ(m.kind, ComponentKind::kSampler);
  ASSERT_EQ(m.outputs.size(), 1u);
  EXPECT_EQ(m.outputs[0].produces, "metric.frame/1");
}

TEST(DdrResctrl, RatesPerL3DomainAndUnavailableGivesNoPoint) {
  TempDir root("ddr");
  install("t0", root.path());
  Harness h(ddr_factory(), opts(root, {"resctrl"}));
  h.host.clock_ns = kT0;
  h.component().start();
  h.component().poll(h.out);
  install("t1", root.path());
  h.host.clock_ns += kTwoSeconds;
  h.component().poll(h.out);
  const auto b = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(b.size(), 1u);  // the first sample only primes: no points, no batch
  EXPECT_DOUBLE_EQ(value(b[0], "ddr.bandwidth.total", {{"domain", "0"}}), 2e9);
  EXPECT_DOUBLE_EQ(value(b[0], "ddr.bandwidth.local", {{"domain", "0"}}), 1e9);
  EXPECT_DOUBLE_EQ(value(b[0], "ddr.bandwidth.total", {{"domain", "1"}}), 5e8);
  EXPECT_FALSE(find(b[0], "ddr.bandwidth.local", {{"domain", "1"}}));  // was "Unavailable": primes now
  EXPECT_EQ(b[0].points.size(), 3u);
  const auto p = *find(b[0], "ddr.bandwidth.total", {{"domain", "0"}});
  EXPECT_EQ(p.unit, "bytes/s");
  EXPECT_EQ(p.labels, (Labels{{"domain", "0"}, {"node", "node-d"}, {"source_name", "mbm_total_bytes"}}));
  EXPECT_EQ(p.key.node_id, "node-d");
  EXPECT_EQ(p.key.timestamp_ns, kT0 + kTwoSeconds);
  int notes = 0;
  for (const auto& [level, line] : h.host.log.lines) notes += line.find("'Unavailable'") != std::string::npos;
  EXPECT_EQ(notes, 1);
}

TEST(DdrResctrl, UnavailableGapWrapAndResetBetweenPolls) {
  TempDir root("ddr");
  install("t0", root.path());
  const fs::path file = root / "sys/fs/resctrl/mon_data/mon_L3_00/mbm_total_bytes";
  Harness h(ddr_factory(), opts(root, {"resctrl"}));
  h.host.clock_ns = kT0;
  h.component().start();
  std::vector<std::optional<double>> rates;
  for (const char* reading : {"18446744073709550616", "1000", "Unavailable", "5000", "100", "2100"}) {
    write_file(file, std::string(reading) + "\n");
    const auto before = h.out.emitted.size();
    h.component().poll(h.out);
    std::optional<double> rate;
    if (h.out.emitted.size() > before)
      if (auto p =
              find(metric_points_of(h.out.emitted.back().second), "ddr.bandwidth.total", {{"domain", "0"}}))
        rate = p->value;
    rates.push_back(rate);
    h.host.clock_ns += kTwoSeconds;
  }
  EXPECT_EQ(rates[0], std::nullopt);  // primes, near the top of 64 bits
  EXPECT_EQ(rates[1], 1000.0);        // wrapped: 999 + 1000 + 1 = 2000 bytes / 2 s
  EXPECT_EQ(rates[2], std::nullopt);  // Unavailable
  EXPECT_EQ(rates[3], 1000.0);        // 4000 bytes over the 4 s since the last reading
  EXPECT_EQ(rates[4], std::nullopt);  // went back: reset (remount), primes again
  EXPECT_EQ(rates[5], 1000.0);        // 2000 bytes / 2 s
}

TEST(DdrMeminfo, UsageInBytes) {
  TempDir root("ddr");
  install("t0", root.path());
  Harness h(ddr_factory(), {{"root", root.path().string()}, {"backends", {"meminfo"}}, {"samples", 1}});
  h.run_source();
  const auto b = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(value(b[0], "ddr.memory.total"), 16384000.0 * 1024);
  EXPECT_DOUBLE_EQ(value(b[0], "ddr.memory.available"), 12288000.0 * 1024);
  EXPECT_DOUBLE_EQ(value(b[0], "ddr.memory.used"), (16384000.0 - 12288000.0) * 1024);
  EXPECT_DOUBLE_EQ(value(b[0], "ddr.memory.cached"), 1070880.0 * 1024);
  EXPECT_DOUBLE_EQ(value(b[0], "ddr.memory.dirty"), 2048.0 * 1024);
  EXPECT_EQ(b[0].points.size(), 5u);
  for (const auto& p : b[0].points) EXPECT_EQ(p.unit, "bytes");
  EXPECT_EQ(find(b[0], "ddr.memory.dirty")->labels.at("source_name"), "Dirty");
}

TEST(DdrPerfImc, DiscoversImcPmusAndEncodesTheirEvents) {
  const auto pmus = ddr_detail::discover_imc((data_dir() / "ddr" / "t0").string());
  ASSERT_EQ(pmus.size(), 2u);  // not the free-running IMC PMU, not the core PMU
  EXPECT_EQ(pmus[0].name, "uncore_imc_0");
  EXPECT_EQ(pmus[0].type, 13u);
  EXPECT_EQ(pmus[0].cpus, (std::vector<int>{0, 28}));
  ASSERT_TRUE(pmus[0].read && pmus[0].write);
  EXPECT_EQ(pmus[0].read->config, 0x0304u);
  EXPECT_EQ(pmus[0].write->config, 0x0c04u);
  EXPECT_DOUBLE_EQ(pmus[0].read->bytes_per_count, 64.0);
  EXPECT_EQ(pmus[1].name, "uncore_imc_1");
  EXPECT_EQ(pmus[1].read->config, 0xcf05u);
  EXPECT_EQ(pmus[1].write->config, 0x10000f005u);  // umask bits above 8 go to config:32-55
}

TEST(DdrPerfImc, EncodingAndCpuListParsers) {
  const std::map<std::string, std::string> f = {
      {"event", "config:0-7"}, {"umask", "config:8-15"}, {"edge", "config:18"}};
  EXPECT_EQ(ddr_detail::encode_event("event=0x04,umask=0x03,edge", f), 0x40304u);
  EXPECT_EQ(ddr_detail::encode_event("event=0x04,ch_mask=0x1", f), std::nullopt);
  EXPECT_EQ(ddr_detail::encode_event("event=0x04", {{"event", "config1:0-7"}}), std::nullopt);
  EXPECT_EQ(ddr_detail::parse_cpu_list("0-2,8"), (std::vector<int>{0, 1, 2, 8}));
  EXPECT_DOUBLE_EQ(ddr_detail::unit_bytes("MiB"), 1048576.0);
  EXPECT_DOUBLE_EQ(ddr_detail::unit_bytes("furlongs"), 0.0);
}

TEST(DdrSampler, AutoUsesWhatTheRootHasAndProbeSaysWhyNotTheRest) {
  TempDir root("ddr");
  install("t0", root.path());
  Harness h(ddr_factory(), opts(root, {"auto"}));
  const Availability a = ddr_factory().probe(h.config());
  EXPECT_TRUE(a.available) << a.reason;
  EXPECT_THAT(a.reason, HasSubstr("back ends: resctrl, meminfo"));
  EXPECT_THAT(a.reason, HasSubstr("perf_imc: found 2 uncore_imc PMUs"));
  EXPECT_THAT(a.reason, HasSubstr("needs the live machine"));
  h.host.clock_ns = kT0;
  h.component().start();
  h.component().poll(h.out);
  install("t1", root.path());
  h.host.clock_ns += kTwoSeconds;
  h.component().poll(h.out);
  const auto b = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_DOUBLE_EQ(value(b[1], "ddr.bandwidth.total", {{"domain", "0"}}), 2e9);
  EXPECT_DOUBLE_EQ(value(b[1], "ddr.memory.available"), 10240000.0 * 1024);
}

TEST(DdrSampler, ExplicitBackEndThatCannotRunIsAReasonAndAStartError) {
  TempDir root("ddr");
  install("t0", root.path());
  Harness h(ddr_factory(), opts(root, {"perf_imc"}));
  const Availability a = ddr_factory().probe(h.config());
  EXPECT_FALSE(a.available);
  EXPECT_THAT(a.reason, HasSubstr("perf_imc: found 2 uncore_imc PMUs"));
  EXPECT_THROW(h.component().start(), std::runtime_error);

  fs::remove_all(root / "sys/fs/resctrl");
  Harness r(ddr_factory(), opts(root, {"resctrl"}));
  const Availability c = ddr_factory().probe(r.config());
  EXPECT_FALSE(c.available);
  EXPECT_THAT(c.reason, HasSubstr("resctrl is not mounted"));

  TempDir empty("ddr");
  Harness e(ddr_factory(), opts(empty, {"auto"}));
  const Availability d = ddr_factory().probe(e.config());
  EXPECT_FALSE(d.available);
  EXPECT_THAT(d.reason, HasSubstr("cannot read " + (empty / "proc/meminfo").string()));
}

TEST(DdrSampler, BackendsOptionIsValidated) {
  EXPECT_THROW(Harness(ddr_factory(), {{"backends", {"dram"}}}), std::invalid_argument);
  EXPECT_THROW(Harness(ddr_factory(), {{"backends", {"auto", "resctrl"}}}), std::invalid_argument);
}

TEST(DdrSampler, SamplesThisMachine) {
  const Availability a = ddr_factory().probe_with_defaults();
  if (!a.available) GTEST_SKIP() << a.reason;
  Harness h(ddr_factory(), {{"samples", 2}, {"interval", "1ms"}});
  h.run_source();
  const auto b = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(b.size(), 2u);
  EXPECT_GT(value(b[0], "ddr.memory.total"), 0.0);
}

}  // namespace
}  // namespace cann_debug::plugins

#ifdef CANN_DEBUG_FAKE_DCMI
namespace cann_debug::plugins {
namespace {

class DcmiScript {
 public:
  explicit DcmiScript(const nlohmann::json& script) : dir_("ddr-dcmi") {
    write_file(dir_ / "script.json", script.dump());
    ::setenv("CANN_DEBUG_FAKE_DCMI_SCRIPT", (dir_ / "script.json").c_str(), 1);
  }
  ~DcmiScript() { ::unsetenv("CANN_DEBUG_FAKE_DCMI_SCRIPT"); }

 private:
  TempDir dir_;
};

TEST(DdrDcmi, NpuMemoryBandwidthUtilisationAsRatios) {
  DcmiScript s(nlohmann::json{{"devices",
                               {{{"card", 0},
                                 {"device", 0},
                                 {"logic_id", 0},
                                 {"values", {{"utilization.5", 37}, {"utilization.10", 64}}}},
                                {{"card", 1},
                                 {"device", 0},
                                 {"logic_id", 1},
                                 {"values", {{"utilization.5", 12}}},
                                 {"errors", {{"dcmi_get_device_utilization_rate.10", -8255}}}}}}});
  TempDir root("ddr");
  Harness h(ddr_factory(), {{"root", root.path().string()},
                            {"backends", {"dcmi"}},
                            {"dcmi_library", CANN_DEBUG_FAKE_DCMI},
                            {"samples", 2}});
  const Availability a = ddr_factory().probe(h.config());
  EXPECT_TRUE(a.available) << a.reason;
  h.run_source();
  const auto b = h.outputs_of<MetricBatch>(0);
  ASSERT_EQ(b.size(), 2u);
  for (const auto& batch : b) {
    EXPECT_DOUBLE_EQ(value(batch, "npu.ddr.bandwidth_utilization", {{"device", "0"}}), 0.37);
    EXPECT_DOUBLE_EQ(value(batch, "npu.hbm.bandwidth_utilization", {{"device", "0"}}), 0.64);
    EXPECT_DOUBLE_EQ(value(batch, "npu.ddr.bandwidth_utilization", {{"device", "1"}}), 0.12);
    EXPECT_FALSE(find(batch, "npu.hbm.bandwidth_utilization", {{"device", "1"}}));  // -8255: not supported
    EXPECT_EQ(find(batch, "npu.ddr.bandwidth_utilization", {{"device", "0"}})->labels.at("source_name"),
              "dcmi_get_device_utilization_rate(5)");
    EXPECT_EQ(find(batch, "npu.ddr.bandwidth_utilization", {{"device", "0"}})->unit, "ratio");
  }
}

TEST(DdrDcmi, MissingLibraryIsAReason) {
  TempDir root("ddr");
  Harness h(
      ddr_factory(),
      {{"root", root.path().string()}, {"backends", {"dcmi"}}, {"dcmi_library", "/nonexistent/libdcmi.so"}});
  const Availability a = ddr_factory().probe(h.config());
  EXPECT_FALSE(a.available);
  EXPECT_THAT(a.reason, HasSubstr("dcmi: /nonexistent/libdcmi.so not found"));
  EXPECT_THROW(h.component().start(), std::runtime_error);
}

}  // namespace
}  // namespace cann_debug::plugins
#endif
