// console_capture: the real npu-smi / hccn_tool captures, the npu-smi table, watch and -t layouts, and bad
// input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "console_capture.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

constexpr double kMiB = 1024.0 * 1024.0;

TEST(ConsoleCapture, RealFaultDiagnosisCapture) {
  if (!have_real("ascend/npu-smi/kg_parse_npu_info_before.txt")) GTEST_SKIP() << "shared real data absent";
  EXPECT_THAT(check_manifest(console_capture_factory().manifest()), ::testing::IsEmpty());
  Harness h(console_capture_factory(), {{"path", real("ascend/npu-smi/kg_parse_npu_info_before.txt")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 34u);
  for (const auto& p : m) {
    EXPECT_EQ(p.key.timestamp_ns, 1725887624179645000) << p.name;  // Datetime: 2024-09-09 13:13:44.179645
    EXPECT_EQ(p.labels.at("device"), "0") << p.name;
  }
  // hccn_tool -i 0 -stat -g
  EXPECT_EQ(one(m, "roce.port.rx_errors").value, 0.0);
  EXPECT_EQ(one(m, "roce.port.rx_errors").labels.at("source_name"), "roce_rx_err_pkt_num");
  EXPECT_EQ(one(m, "roce.port.tx_errors").unit, "count");
  // -link_stat: "[devid 0]link up count       : 2"
  EXPECT_EQ(one(m, "roce.port.link_up_count").value, 2.0);
  // -net_health: "net health status: Socket failed"
  const auto health = one(m, "roce.port.net_health");
  EXPECT_EQ(health.value, 1.0);
  EXPECT_EQ(health.labels.at("status"), "Socket failed");
  // -optical
  EXPECT_EQ(one(m, "roce.optical.temperature").value, 47.0);
  EXPECT_DOUBLE_EQ(one(m, "roce.optical.vcc").value, 3.2629);
  EXPECT_EQ(one(m, "roce.optical.vcc").unit, "volts");
  EXPECT_DOUBLE_EQ(one(m, "roce.optical.tx_power", {{"lane", "0"}}).value, 4.4035e-3);
  EXPECT_DOUBLE_EQ(one(m, "roce.optical.rx_power", {{"lane", "1"}}).value, 0.0054e-3);
  EXPECT_DOUBLE_EQ(one(m, "roce.optical.tx_bias", {{"lane", "3"}}).value, 7.9240e-3);
  EXPECT_DOUBLE_EQ(one(m, "roce.optical.media_snr", {{"lane", "2"}}).value, 22.1875);
  EXPECT_EQ(find(m, "roce.optical.host_snr").size(), 0u);  // "not supported"
  EXPECT_EQ(find(m, "roce.optical.tx_power").size(), 4u);
  // npu-smi info -i 0 -t usages: "Chip ID : 0" comes after the values it belongs to.
  const auto ddr = one(m, "npu.ddr.capacity");
  EXPECT_EQ(ddr.value, 13553 * kMiB);
  EXPECT_EQ(ddr.unit, "bytes");
  EXPECT_EQ(ddr.labels.at("chip"), "0");
  EXPECT_EQ(ddr.labels.at("source_name"), "DDR Capacity(MB)");
  EXPECT_DOUBLE_EQ(one(m, "npu.ddr.utilization").value, 0.06);
  EXPECT_EQ(one(m, "npu.hbm.capacity").value, 31129 * kMiB);
  EXPECT_EQ(one(m, "npu.aicore.utilization").value, 0.0);
  EXPECT_EQ(one(m, "npu.aicore.utilization").unit, "ratio");
  EXPECT_EQ(one(m, "npu.ddr.hugepages_total").unit, "count");
  // npu-smi info -i 0 -c 0 -t health
  const auto npu_health = one(m, "npu.health");
  EXPECT_EQ(npu_health.value, 0.0);
  EXPECT_EQ(npu_health.labels.at("health"), "OK");
  EXPECT_EQ(npu_health.labels.at("chip"), "0");
}

TEST(ConsoleCapture, RealModelArtsCaptureWithAPathMissingItsSlash) {
  if (!have_real("ascend/npu-smi/modelarts_worker0_npu_info_before.txt"))
    GTEST_SKIP() << "shared real data absent";
  Harness h(console_capture_factory(),
            {{"path", real("ascend/npu-smi/modelarts_worker0_npu_info_before.txt")},
             {"utc_offset", "+08:00"},
             {"node", "worker-0"}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 24u);  // 8 NPUs x (2 counters + link up count)
  for (int d = 0; d < 8; ++d) {
    const Labels dev{{"device", std::to_string(d)}};
    EXPECT_EQ(one(m, "roce.port.link_up_count", dev).value, 2.0);  // device 0's command is "usr/local/..."
    EXPECT_EQ(one(m, "roce.port.rx_errors", dev).value, 0.0);
  }
  EXPECT_EQ(m[0].key.timestamp_ns, 1725442721269221000 - 8LL * 3600 * 1'000'000'000);
  EXPECT_EQ(m[0].key.node_id, "worker-0");
  EXPECT_EQ(m[0].labels.at("node"), "worker-0");
}

TEST(ConsoleCapture, NpuSmiInfoTable910B) {
  Harness h(console_capture_factory(), {{"path", fixture("console/npu_smi_info_910b.txt")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 20u);
  const auto power = one(m, "npu.power", {{"device", "0"}});
  EXPECT_DOUBLE_EQ(power.value, 98.2);
  EXPECT_EQ(power.unit, "watts");
  EXPECT_EQ(power.labels.at("npu_name"), "910B3");
  EXPECT_EQ(power.labels.at("source_name"), "Power(W)");
  EXPECT_FALSE(power.key.has_timestamp());
  EXPECT_EQ(find(m, "npu.power", {{"device", "1"}}).size(), 0u);  // NA
  EXPECT_EQ(one(m, "npu.temperature", {{"device", "1"}}).value, 48.0);
  EXPECT_EQ(one(m, "npu.health", {{"device", "1"}}).value, 1.0);  // Warning
  EXPECT_DOUBLE_EQ(one(m, "npu.aicore.utilization", {{"device", "0"}}).value, 0.37);
  const auto hbm = one(m, "npu.hbm.used", {{"device", "0"}});
  EXPECT_EQ(hbm.value, 3434 * kMiB);
  EXPECT_EQ(hbm.labels.at("chip"), "0");
  EXPECT_EQ(hbm.labels.at("bus_id"), "0000:C1:00.0");
  EXPECT_EQ(one(m, "npu.hbm.capacity", {{"device", "1"}}).value, 65536 * kMiB);
  EXPECT_EQ(one(m, "npu.ddr.hugepages_total", {{"device", "0"}}).value, 0.0);
  const auto proc = one(m, "npu.process.memory.used");
  EXPECT_EQ(proc.value, 3000 * kMiB);
  EXPECT_EQ(proc.labels.at("pid"), "123456");
  EXPECT_EQ(proc.labels.at("process_name"), "python3");
}

TEST(ConsoleCapture, AHealthOtherThanOkAndDeviceFaultCodesAreHardwareEvents) {
  TempDir dir;
  // The 910B table: NPU 1 is at Warning.
  Harness table(console_capture_factory(), {{"path", fixture("console/npu_smi_info_910b.txt")}});
  ASSERT_EQ(run(table), "");
  const auto t = records(table);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_EQ(t[0].fields["event"], "npu_health");
  EXPECT_EQ(t[0].fields["severity"], "warning");
  EXPECT_EQ(t[0].fields["device"], "npu1");
  EXPECT_EQ(t[0].fields["hardware"], true);
  EXPECT_GT(t[0].line, 0);
  // -t health of NPU 3: Alarm, one catalogued code and one that is not.
  const std::string path = dir.write("npu_info_after.txt",
                                     "Datetime: 2024-09-09 13:13:44.179645\n"
                                     "/usr/local/bin/npu-smi info -i 3 -c 0 -t health\n"
                                     "\tHealth Status                  : Alarm\n"
                                     "\tError Code                     : 0x80e18402 0x8C2FA009\n"
                                     "\tError Information              : node type=HBM\n");
  Harness h(console_capture_factory(), {{"path", path}});
  ASSERT_EQ(run(h), "");
  const auto r = records(h);
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].fields["event"], "npu_health");
  EXPECT_EQ(r[0].fields["severity"], "error");  // Alarm
  EXPECT_EQ(r[0].fields["device"], "npu3");
  EXPECT_EQ(r[0].line, 3);
  EXPECT_EQ(r[0].key.timestamp_ns, 1725887624179645000);
  EXPECT_EQ(r[1].fields["event"], "npu_error_code");
  EXPECT_EQ(r[1].fields["code"], "0x80e18402");
  EXPECT_EQ(r[1].fields["component"], "memory");
  EXPECT_EQ(r[1].fields["severity"], "error");
  EXPECT_EQ(r[1].fields["meaning"], "64 HBM lines isolated (the limit)");
  EXPECT_EQ(r[1].line, 4);
  EXPECT_EQ(r[2].fields["code"], "0x8C2FA009");
  EXPECT_EQ(r[2].fields["severity"], "warning");  // not in the catalog: reported, not judged
  EXPECT_EQ(one(metrics(h), "npu.error_codes").value, 2.0);
  // A folder: its captures in name order, other files left alone; "Error Code : NA" is no event.
  dir.write("node/a_npu_info.txt",
            "/usr/local/bin/npu-smi info -i 0 -c 0 -t health\n\tHealth Status : OK\n\tError Code : NA\n");
  dir.write("node/b_npu_info.txt",
            "/usr/local/bin/npu-smi info -i 1 -c 0 -t health\n\tHealth Status : Critical\n");
  dir.write("node/train.log", " iteration 1/10 | lm loss: 9.0 |\n");
  Harness folder(console_capture_factory(), {{"path", dir / "node"}});
  ASSERT_EQ(run(folder), "");
  const auto f = records(folder);
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].fields["device"], "npu1");
  EXPECT_EQ(f[0].fields["severity"], "error");
  EXPECT_EQ(metrics(folder).size(), 2u);  // two health points
}

TEST(ConsoleCapture, NpuSmiInfoTable310PWithoutCommandLine) {
  Harness h(console_capture_factory(), {{"path", fixture("console/npu_smi_info_310p.txt")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 7u);
  EXPECT_EQ(one(m, "npu.memory.used", {{"device", "6"}, {"chip", "0"}}).value, 1839 * kMiB);
  EXPECT_EQ(one(m, "npu.memory.capacity").value, 21525 * kMiB);
  EXPECT_EQ(find(m, "npu.hbm.used").size(), 0u);
}

TEST(ConsoleCapture, WatchRows) {
  Harness h(console_capture_factory(), {{"path", fixture("console/watch.txt")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 14u);
  EXPECT_DOUBLE_EQ(one(m, "npu.power", {{"sample", "1"}}).value, 90.2);
  EXPECT_EQ(one(m, "npu.power", {{"sample", "1"}}).labels.at("device"), "2");
  EXPECT_EQ(one(m, "npu.power", {{"sample", "1"}}).labels.at("chip"), "0");
  EXPECT_DOUBLE_EQ(one(m, "npu.aicore.utilization", {{"sample", "1"}}).value, 0.25);
  EXPECT_DOUBLE_EQ(one(m, "npu.memory.bandwidth_utilization", {{"sample", "1"}}).value, 0.07);
  EXPECT_EQ(one(m, "npu.ctrlcpu.utilization", {{"sample", "0"}}).labels.at("source_name"), "Ctrl Cpu(%)");
}

TEST(ConsoleCapture, KeyValueBlocksAndHccnForms) {
  Harness h(console_capture_factory(), {{"path", fixture("console/usages_common.txt")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 16u);
  for (const auto& p : m) EXPECT_EQ(p.labels.at("device"), "3") << p.name;
  EXPECT_DOUBLE_EQ(one(m, "npu.aicore.utilization").value, 0.37);
  EXPECT_EQ(one(m, "npu.aicore.utilization").labels.at("chip"), "0");
  EXPECT_EQ(find(m, "npu.aicpu.utilization").size(), 0u);  // NA
  EXPECT_EQ(one(m, "npu.aicore.rated_frequency").value, 1.8e9);
  EXPECT_EQ(one(m, "npu.aicore.frequency").value, 8e8);
  EXPECT_EQ(one(m, "npu.aicore.frequency").unit, "hertz");
  EXPECT_DOUBLE_EQ(one(m, "npu.power").value, 98.5);
  EXPECT_EQ(one(m, "npu.temperature").unit, "celsius");
  EXPECT_DOUBLE_EQ(one(m, "roce.port.tx_bandwidth").value, 1250.5e6);
  EXPECT_EQ(one(m, "roce.port.tx_bandwidth").unit, "bytes/s");
  EXPECT_EQ(one(m, "roce.port.link_up").value, 1.0);
  EXPECT_EQ(one(m, "roce.port.speed").value, 2e11);
  EXPECT_EQ(one(m, "roce.port.pfc_sent_by_priority", {{"priority", "3"}}).value, 1162471.0);
  EXPECT_EQ(one(m, "roce.port.cnp_received").value, 42.0);
  EXPECT_EQ(one(m, "roce.port.retransmissions").value, 7.0);
  EXPECT_EQ(m[0].key.timestamp_ns, 1725887624179645000);
}

TEST(ConsoleCapture, UtcOffsetIsValidated) {
  EXPECT_THROW(Harness(console_capture_factory(), {{"path", "x"}, {"utc_offset", "8 hours"}}),
               std::invalid_argument);
}

TEST(ConsoleCapture, MalformedInputs) {
  TempDir dir;
  const std::string table_head =
      "+---------------------------+---------------+----------------------------------------------------+\n"
      "| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|\n"
      "| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |\n"
      "+===========================+===============+====================================================+\n";
  const std::string t = std::to_string(table_head.size());
  const std::string npu_row =
      "| 0     910B3               | OK            | 98.2        52                0    / 0             |\n";
  const std::string tr = std::to_string(table_head.size() + npu_row.size());
  const std::string kv = "npu-smi info -t usages -i 0\n\tNPU ID : 0\n";
  const std::string k = std::to_string(kv.size());
  const std::string watch =
      "NpuID(Idx)  ChipId(Idx) Pwr(W)      Temp(C)     AI Core(%)  AI Cpu(%)   Ctrl Cpu(%) Memory(%)   "
      "Memory BW(%)\n";
  const std::string w = std::to_string(watch.size());
  const std::string hccn = "hccn_tool -i 1 -stat -g\npacket statistics:\n";
  const std::string c = std::to_string(hccn.size());
  const std::vector<BadInput> cases = {
      {"table_power_text", table_head + "| 0     910B3    | OK   | abc   52   0 / 0 |\n",
       "5: expected a number for 'Power(W)', got 'abc' (line starts at byte offset " + t + ")"},
      {"table_value_count", table_head + "| 0     910B3    | OK   | 98.2   52 |\n",
       "5: expected 3 values under 'Power(W) Temp(C) Hugepages-Usage(page)', got 2: '98.2   52' (line starts "
       "at byte "
       "offset " +
           t + ")"},
      {"table_no_header", "+-----+\n| 0  910B3 | OK | 98.2 52 0 / 0 |\n",
       "2: expected the table header ('| NPU  Name | Health | Power(W) ...') before the device rows (line "
       "starts at "
       "byte offset 8)"},
      {"table_npu_id", table_head + "| x     910B3    | OK   | 98.2   52   0 / 0 |\n",
       "5: expected the NPU id and name in the first cell, got 'x     910B3' (line starts at byte offset " +
           t + ")"},
      {"table_two_cells", table_head + "| 0     910B3    | OK   |\n",
       "5: expected 3 cells separated by '|' in a device row, got 2 (line starts at byte offset " + t + ")"},
      {"table_pair", table_head + npu_row + "| 0 | 0000:C1:00.0 | 0   0 / 0   3434 |\n",
       "6: expected 'used / total' for 'HBM-Usage(MB)', got '3434' (line starts at byte offset " + tr + ")"},
      {"kv_value", kv + "\tAicore Usage Rate(%) : high\n",
       "3: expected a number for 'Aicore Usage Rate(%)', got 'high' (line starts at byte offset " + k + ")"},
      {"kv_npu_id", "npu-smi info -t usages -i 0\n\tNPU ID : zero\n",
       "2: expected an integer NPU id after 'NPU ID', got 'zero' (line starts at byte offset 28)"},
      {"watch_count", watch + "0 0 90.1 34 0 0 2 5\n",
       "2: expected 9 values as in the watch header, got 8 (line starts at byte offset " + w + ")"},
      {"watch_number", watch + "0 0 hot 34 0 0 2 5 0\n",
       "2: expected a number for 'Pwr(W)', got 'hot' (line starts at byte offset " + w + ")"},
      {"watch_device", watch + "a 0 90.1 34 0 0 2 5 0\n",
       "2: expected an integer for 'NpuID(Idx)', got 'a' (line starts at byte offset " + w + ")"},
      {"hccn_counter", hccn + "roce_rx_err_pkt_num:-5\n",
       "3: expected a non-negative integer for counter 'roce_rx_err_pkt_num', got '-5' (line starts at byte "
       "offset " +
           c + ")"},
      {"hccn_bandwidth_unit", "hccn_tool -i 0 -bandwidth -g\nBandwidth TX: 1.0 GB/sec\n",
       "2: expected a bandwidth in MB/sec, got the unit 'GB/sec' (line starts at byte offset 29)"},
      {"hccn_bandwidth_value", "hccn_tool -i 0 -bandwidth -g\nBandwidth RX: fast MB/sec\n",
       "2: expected a number for 'Bandwidth RX', got 'fast' (line starts at byte offset 29)"},
      {"hccn_optical", "hccn_tool -i 0 -optical -g\noptical info:\nVcc                  : high mV\n",
       "3: expected a number for optical 'Vcc', got 'high mV' (line starts at byte offset 41)"},
      {"datetime", "Datetime: yesterday\nnpu-smi info\n",
       "1: expected a date like 'Datetime: 2024-09-09 13:13:44.179645', got 'Datetime: yesterday' (line "
       "starts at byte "
       "offset 0)"},
      {"nothing_known", "hello\nworld\n",
       " expected npu-smi or hccn_tool output (a command line naming one of them, an npu-smi table, watch "
       "rows or "
       "hccn_tool counters), found none"},
      {"nul_byte", hccn + std::string("roce_rx\0:1\n", 11),
       "3: expected text, got the control byte \\x00 at column 8 (binary data?) (line starts at byte "
       "offset " +
           c + ")"},
      {"long_line", hccn + std::string(3 << 20, 'x') + "\n",
       "3: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
       "missing "
       "newline?) (line starts at byte offset " +
           c + ")"},
  };
  for (const auto& bad : cases)
    EXPECT_EQ(
        check_bad_input(console_capture_factory(), {{"max_line_bytes", "1MiB"}}, bad, dir, "capture.txt"), "")
        << bad.name;
}

TEST(ConsoleCapture, PointsBeforeAFaultAreEmitted) {
  TempDir dir;
  const std::string path =
      dir.write("c.txt", "hccn_tool -i 1 -stat -g\nroce_cqe_num:5\nroce_rx_err_pkt_num:x\n");
  Harness h(console_capture_factory(), {{"path", path}});
  EXPECT_THAT(run(h), ::testing::StartsWith(path + ":3: "));
  const auto m = metrics(h);
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0].name, "roce.port.cqe");
  EXPECT_EQ(m[0].labels.at("device"), "1");
}

}  // namespace
}  // namespace cann_debug::plugins
