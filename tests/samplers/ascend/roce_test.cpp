// Tests of the roce sampler: a fixture /sys/class/infiniband tree whose counters change between samples,
// the fake libdcmi.so and the fake hccn_tool.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <set>

#include "ascend_test_support.hpp"
#include "dcmi/dcmi_api.hpp"
#include "roce.hpp"

namespace cann_debug::plugins {
namespace {

namespace fs = std::filesystem;
using namespace ascend_test;
using test::TempDir;
using test::write_file;
using ::testing::HasSubstr;

constexpr TimestampNs kOneSecond = 1'000'000'000;
const std::string kFakeHccnTool = std::string(FAKE_TOOLS_DIR) + "/hccn_tool";

void install_fixture(const TempDir& root) {
  fs::copy(test::data_dir() / "samplers" / "roce", root.path(), fs::copy_options::recursive);
}

fs::path counter(const TempDir& root, const std::string& nic, const std::string& rel) {
  return root / ("sys/class/infiniband/" + nic + "/ports/1/" + rel);
}

// Polls at kT0, then `change` writes new counters, then polls at kT0 + 2 s.
template <typename Change>
std::vector<MetricBatch> two_samples(testing::Harness& h, Change change) {
  h.component().start();
  h.host.clock_ns = kT0;
  h.component().poll(h.out);
  change();
  h.host.clock_ns = kT0 + kTwoSeconds;
  h.component().poll(h.out);
  std::vector<MetricBatch> out;
  for (const auto& emitted : h.out.emitted) out.push_back(metric_points_of(emitted.second));
  return out;
}

TEST(Roce, ManifestIsSound) {
  EXPECT_THAT(check_manifest(roce_factory().manifest()), ::testing::IsEmpty());
}

TEST(Roce, RdmaSysfsCountersBecomeRatesWithOctetsTimesFour) {
  TempDir root("roce");
  install_fixture(root);
  testing::Harness h(roce_factory(), {{"ascend", "off"}, {"root", root.path().string()}});
  const auto b = two_samples(h, [&] {
    write_file(counter(root, "mlx5_0", "counters/port_xmit_data"), "1001000\n");  // +1000 x 4 octets
    write_file(counter(root, "mlx5_0", "counters/port_rcv_packets"), "6100\n");
    write_file(counter(root, "mlx5_0", "hw_counters/np_cnp_sent"), "110\n");
    write_file(counter(root, "mlx5_0", "hw_counters/rp_cnp_handled"), "230\n");
    write_file(counter(root, "mlx5_0", "hw_counters/lifespan"), "99\n");
  });
  ASSERT_EQ(b.size(), 1u);  // the first sample only primes the counters
  const Labels nic0 = {{"nic", "mlx5_0"}, {"port", "1"}};
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.tx_bytes", nic0), 2000);  // 4000 bytes in 2 s
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.tx_bytes.delta", nic0), 4000);
  EXPECT_EQ(find(b[0], "roce.port.tx_bytes", nic0)->unit, "bytes/s");
  EXPECT_EQ(find(b[0], "roce.port.tx_bytes.delta", nic0)->unit, "bytes");
  EXPECT_EQ(find(b[0], "roce.port.tx_bytes", nic0)->labels.at("source_name"), "port_xmit_data");
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.rx_packets", nic0), 50);
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.cnp_sent", nic0), 5);
  EXPECT_EQ(find(b[0], "roce.port.cnp_sent", nic0)->unit, "count/s");
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.cnp_received", nic0), 15);
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.tx_bytes", {{"nic", "mlx5_1"}}), 0);  // unchanged NIC: rate 0
  EXPECT_FALSE(find(b[0], "roce.port.lifespan"));
  EXPECT_EQ(find(b[0], "roce.port.tx_bytes", nic0)->key.timestamp_ns, kT0 + kTwoSeconds);
}

TEST(Roce, Legacy32BitWrapCountsAcrossAndResetGivesNoSpike) {
  TempDir root("roce");
  install_fixture(root);
  write_file(counter(root, "mlx5_0", "counters/symbol_error"), "4294967290\n");
  write_file(counter(root, "mlx5_0", "counters/port_xmit_packets"), "5000000000\n");
  testing::Harness h(roce_factory(), {{"ascend", "off"}, {"root", root.path().string()}});
  const auto b = two_samples(h, [&] {
    write_file(counter(root, "mlx5_0", "counters/symbol_error"), "4\n");       // 32-bit wrap: +10
    write_file(counter(root, "mlx5_0", "counters/port_xmit_packets"), "7\n");  // 64-bit counter reset
  });
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.symbol_errors.delta", {{"nic", "mlx5_0"}}), 10);
  EXPECT_FALSE(find(b[0], "roce.port.tx_packets", {{"nic", "mlx5_0"}}));
  EXPECT_FALSE(find(b[0], "roce.port.tx_packets.delta", {{"nic", "mlx5_0"}}));
}

TEST(Roce, NicThatAppearsIsReadFromTheNextListingAndOneThatGoesAwayStops) {
  TempDir root("roce");
  install_fixture(root);
  testing::Harness h(roce_factory(), {{"ascend", "off"}, {"root", root.path().string()}});
  h.component().start();
  const auto nics_at = [&](std::int64_t t) {
    h.out.emitted.clear();
    h.host.clock_ns = t;
    h.component().poll(h.out);
    std::set<std::string> nics;
    for (const auto& emitted : h.out.emitted)
      for (const auto& p : metric_points_of(emitted.second).points)
        if (p.name == "roce.port.tx_bytes") nics.insert(p.labels.at("nic"));
    return nics;
  };
  nics_at(kT0);
  fs::copy(root / "sys/class/infiniband/mlx5_1", root / "sys/class/infiniband/mlx5_2",
           fs::copy_options::recursive);
  fs::remove_all(root / "sys/class/infiniband/mlx5_0");
  // Until the next listing the kept files are read: a removed fixture file still reads its old text.
  EXPECT_EQ(nics_at(kT0 + kOneSecond), (std::set<std::string>{"mlx5_0", "mlx5_1"}));
  nics_at(kT0 + 6 * kOneSecond);  // listed again: mlx5_2 primes its counters
  EXPECT_EQ(nics_at(kT0 + 7 * kOneSecond), (std::set<std::string>{"mlx5_1", "mlx5_2"}));
}

TEST(Roce, ErrorCountersAtMostOncePerSlowIntervalTrafficEverySample) {
  TempDir root("roce");
  install_fixture(root);
  testing::Harness h(
      roce_factory(),
      {{"ascend", "off"}, {"root", root.path().string()}, {"interval", "10ms"}, {"slow_interval", "100ms"}});
  h.component().start();
  const Labels nic0 = {{"nic", "mlx5_0"}};
  std::vector<int> with_errors, with_traffic;
  for (int i = 0; i <= 20; ++i) {
    h.out.emitted.clear();
    h.host.clock_ns = kT0 + i * 10'000'000;
    write_file(counter(root, "mlx5_0", "counters/port_xmit_data"), std::to_string(1000000 + 100 * i) + "\n");
    write_file(counter(root, "mlx5_0", "counters/symbol_error"), std::to_string(10 + i) + "\n");
    h.component().poll(h.out);
    if (h.out.emitted.empty()) continue;
    const auto b = metric_points_of(h.out.emitted.back().second);
    if (find(b, "roce.port.symbol_errors.delta", nic0)) with_errors.push_back(i);
    if (find(b, "roce.port.tx_bytes", nic0)) with_traffic.push_back(i);
    if (i == 20) {
      EXPECT_DOUBLE_EQ(value(b, "roce.port.symbol_errors.delta", nic0), 10);  // over the last 100 ms
      EXPECT_DOUBLE_EQ(value(b, "roce.port.symbol_errors", nic0), 100);       // 10 in 0.1 s
      EXPECT_DOUBLE_EQ(value(b, "roce.port.tx_bytes", nic0), 400 / 0.01);     // 100 words in 10 ms
    }
  }
  EXPECT_EQ(with_errors, (std::vector<int>{10, 20}));  // read at 0 (primed), 10, 20
  EXPECT_EQ(with_traffic.size(), 20u);                 // every sample after the first
}

nlohmann::json netdev(std::uint64_t scale) {
  nlohmann::json v = nlohmann::json::object();
  std::uint64_t i = 1;
  for (const auto& f : dcmi::netdev_counter_fields()) v[std::string("netdev.") + f.name] = (i++) * scale;
  return v;
}

TEST(Roce, AscendDcmiCountersAsRatesWithTheDriverName) {
  TempDir dir("roce");
  TempDir empty_root("roce");
  auto values = netdev(1000);
  values["netdev.roce_rx_cnp_pkt_num"] = {100, 160, 20};
  values["netdev.mac_tx_pfc_pri3_pkt_num"] = {{"base", 7}, {"step", 4}};
  values["netdev.mac_tx_total_oct_num"] = {{"base", 1e12}, {"step", 5e9}};
  use_script(dir, one_device(values));
  testing::Harness h(roce_factory(), {{"library", FAKE_DCMI_LIBRARY}, {"root", empty_root.path().string()}});
  const auto b = poll_n(h, 3);
  EXPECT_TRUE(b[0].points.empty());
  EXPECT_DOUBLE_EQ(value(b[1], "roce.port.cnp_received", {{"device", "0"}}), 30);
  EXPECT_DOUBLE_EQ(value(b[1], "roce.port.cnp_received.delta"), 60);
  EXPECT_EQ(find(b[1], "roce.port.cnp_received")->labels.at("source_name"), "roce_rx_cnp_pkt_num");
  EXPECT_DOUBLE_EQ(value(b[1], "roce.port.pfc_sent_by_priority", {{"priority", "3"}}), 2);
  EXPECT_DOUBLE_EQ(value(b[1], "roce.port.mac_tx_bytes"), 2.5e9);
  EXPECT_EQ(find(b[1], "roce.port.mac_tx_bytes")->unit, "bytes/s");
  EXPECT_DOUBLE_EQ(value(b[1], "roce.port.retransmissions"), 0);  // constant counter: rate 0
  EXPECT_FALSE(find(b[2], "roce.port.cnp_received"));             // 160 -> 20: reset, no spike
  EXPECT_EQ(find(b[1], "roce.port.cnp_received")->key.device, 0);
}

TEST(Roce, HccnToolFallbackGivesTheSameNamesAsDcmi) {
  // DCMI, every counter of dcmi_network_pkt_stats_info.
  TempDir dir("roce");
  TempDir root("roce");
  use_script(dir, one_device(netdev(1)));
  testing::Harness d(roce_factory(), {{"library", FAKE_DCMI_LIBRARY}, {"root", root.path().string()}});
  const auto from_dcmi = names_and_units(poll_n(d, 2).at(1));

  // hccn_tool printing the same counters, then 10 more of each.
  write_file(root / "dev" / "davinci0", "");
  write_file(root / "dev" / "davinci_manager", "");
  TempDir data("roce");
  auto write_stat = [&](int add) {
    std::string text;
    for (const auto& f : dcmi::netdev_counter_fields())
      text += std::string(f.name) + ":" + std::to_string(100 + add) + "\n";
    write_file(data / "hccn_stat_0.txt", text);
  };
  write_stat(0);
  ::setenv("CANN_DEBUG_FAKE_TOOL_DATA", data.path().c_str(), 1);
  testing::Harness h(roce_factory(), {{"ascend", "hccn_tool"},
                                      {"hccn_tool", kFakeHccnTool},
                                      {"root", root.path().string()},
                                      {"rdma_sysfs", false}});
  const auto b = two_samples(h, [&] { write_stat(10); });
  ::unsetenv("CANN_DEBUG_FAKE_TOOL_DATA");
  ASSERT_EQ(b.size(), 1u);
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.cnp_received", {{"device", "0"}}), 5);
  EXPECT_DOUBLE_EQ(value(b[0], "roce.port.cnp_received.delta"), 10);
  EXPECT_EQ(find(b[0], "roce.port.cnp_received")->labels.at("source_name"), "roce_rx_cnp_pkt_num");
  EXPECT_EQ(names_and_units(b[0]), from_dcmi);
  // 48 counters, the 16 per-priority PFC counters under 2 names (label priority): 34 rates + 34 deltas.
  EXPECT_EQ(from_dcmi.size(), 2u * 34u);
}

TEST(Roce, ProbeNamesEverySourceThatIsMissing) {
  TempDir root("roce");
  std::vector<OptionIssue> issues;
  const Config config = resolve_config(roce_factory().manifest().options,
                                       {{"library", "/nonexistent/libdcmi.so"},
                                        {"hccn_tool", "no-such-hccn-tool-cd"},
                                        {"root", root.path().string()}},
                                       issues);
  const auto a = roce_factory().probe(config);
  EXPECT_FALSE(a.available);
  EXPECT_THAT(a.reason, HasSubstr("DCMI: /nonexistent/libdcmi.so not found: "));
  EXPECT_THAT(a.reason, HasSubstr("hccn_tool: no-such-hccn-tool-cd not on PATH"));
  EXPECT_THAT(a.reason, HasSubstr("RDMA sysfs: no RDMA port counters under " + root.path().string()));
  install_fixture(root);
  const auto b = roce_factory().probe(config);
  EXPECT_TRUE(b.available);
  EXPECT_THAT(b.reason, HasSubstr("partly: DCMI"));
}

}  // namespace
}  // namespace cann_debug::plugins
