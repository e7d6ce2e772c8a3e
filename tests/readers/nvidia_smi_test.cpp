// nvidia_smi: `nvidia-smi -q -x` XML (old and new ECC layouts, clock event reasons, row remapping, page
// retirement, PCIe width) and the console table (both layouts, ERR!), bad input, and the real captures of
// ../shared/real/gpu_host.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "nvidia_smi.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

std::vector<Record> read_smi(const std::string& path) {
  Harness h(nvidia_smi_factory(), {{"path", path}});
  const std::string error = run(h);
  if (!error.empty()) throw std::runtime_error(error);
  return records(h);
}

std::vector<std::string> events_of(const std::vector<Record>& r) {
  std::vector<std::string> out;
  for (const auto& x : r)
    if (x.fields["log_kind"] == "event")
      out.push_back(x.fields["event"].get<std::string>() + "/" + x.fields["severity"].get<std::string>());
  return out;
}

// A -q -x document of driver 535 (nvsmi_device_v12) with every condition the reader reports on GPU 1.
const char* kFaultyXml = R"(<?xml version="1.0" ?>
<!DOCTYPE nvidia_smi_log SYSTEM "nvsmi_device_v12.dtd">
<nvidia_smi_log>
  <timestamp>Mon Jan  6 10:00:00 2025</timestamp>
  <driver_version>535.54.03</driver_version>
  <gpu id="00000000:07:00.0">
    <product_name>NVIDIA H100 80GB HBM3</product_name>
    <uuid>GPU-aaaa</uuid>
    <minor_number>0</minor_number>
    <performance_state>P0</performance_state>
    <clocks_event_reasons>
      <clocks_event_reason_gpu_idle>Not Active</clocks_event_reason_gpu_idle>
      <clocks_event_reason_sw_power_cap>Active</clocks_event_reason_sw_power_cap>
    </clocks_event_reasons>
    <fb_memory_usage><total>81559 MiB</total><used>70000 MiB</used></fb_memory_usage>
    <utilization><gpu_util>98 %</gpu_util></utilization>
    <ecc_errors><volatile><sram_correctable>0</sram_correctable><sram_uncorrectable>0</sram_uncorrectable>
      <dram_correctable>0</dram_correctable><dram_uncorrectable>0</dram_uncorrectable></volatile></ecc_errors>
    <temperature><gpu_temp>61 C</gpu_temp><gpu_temp_slow_threshold>87 C</gpu_temp_slow_threshold></temperature>
    <gpu_power_readings><power_draw>612.40 W</power_draw><current_power_limit>700.00 W</current_power_limit>
    </gpu_power_readings>
    <clocks><sm_clock>1980 MHz</sm_clock></clocks>
    <max_clocks><sm_clock>1980 MHz</sm_clock></max_clocks>
  </gpu>
  <gpu id="00000000:0F:00.0">
    <product_name>NVIDIA H100 80GB HBM3</product_name>
    <minor_number>1</minor_number>
    <pci><pci_gpu_link_info><link_widths><max_link_width>16x</max_link_width>
      <current_link_width>4x</current_link_width></link_widths></pci_gpu_link_info></pci>
    <clocks_event_reasons>
      <clocks_event_reason_hw_slowdown>Active</clocks_event_reason_hw_slowdown>
      <clocks_event_reason_hw_thermal_slowdown>Active</clocks_event_reason_hw_thermal_slowdown>
    </clocks_event_reasons>
    <ecc_errors>
      <volatile><sram_uncorrectable>0</sram_uncorrectable><dram_uncorrectable>2</dram_uncorrectable>
        <dram_correctable>17</dram_correctable></volatile>
      <aggregate><sram_uncorrectable>N/A</sram_uncorrectable><dram_uncorrectable>5</dram_uncorrectable></aggregate>
    </ecc_errors>
    <retired_pages><pending_retirement>Yes</pending_retirement></retired_pages>
    <remapped_rows><remapped_row_unc>3</remapped_row_unc><remapped_row_pending>Yes</remapped_row_pending>
      <remapped_row_failure>Yes</remapped_row_failure></remapped_rows>
    <temperature><gpu_temp>[N/A]</gpu_temp></temperature>
  </gpu>
</nvidia_smi_log>
)";

TEST(NvidiaSmi, XmlDevicesAndEveryCondition) {
  EXPECT_THAT(check_manifest(nvidia_smi_factory().manifest()), ::testing::IsEmpty());
  TempDir dir;
  const auto r = read_smi(dir.write("nvidia-smi.xml", kFaultyXml));
  ASSERT_EQ(r.size(), 2u + 7u);
  const auto& g0 = r[0].fields;
  EXPECT_EQ(g0["log_kind"], "device");
  EXPECT_EQ(g0["device"], "00000000:07:00.0");
  EXPECT_EQ(g0["index"], 0);
  EXPECT_EQ(g0["name"], "NVIDIA H100 80GB HBM3");
  EXPECT_DOUBLE_EQ(g0["power_w"].get<double>(), 612.40);
  EXPECT_DOUBLE_EQ(g0["power_limit_w"].get<double>(), 700.0);
  EXPECT_DOUBLE_EQ(g0["temperature_c"].get<double>(), 61.0);
  EXPECT_DOUBLE_EQ(g0["slowdown_temperature_c"].get<double>(), 87.0);
  EXPECT_DOUBLE_EQ(g0["memory_used_mib"].get<double>(), 70000.0);
  EXPECT_DOUBLE_EQ(g0["utilization_pct"].get<double>(), 98.0);
  EXPECT_DOUBLE_EQ(g0["ecc_uncorrected_volatile"].get<double>(), 0.0);
  EXPECT_EQ(r[0].key.timestamp_ns, 1736157600000000000);
  EXPECT_EQ(r[0].line, 6);
  const auto& g1 = r[1].fields;
  EXPECT_FALSE(g1.contains("temperature_c"));  // [N/A] is absent, not 0
  EXPECT_DOUBLE_EQ(g1["ecc_uncorrected_volatile"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(g1["ecc_uncorrected_aggregate"].get<double>(), 5.0);
  EXPECT_DOUBLE_EQ(g1["ecc_corrected_volatile"].get<double>(), 17.0);
  // The software power cap of GPU 0 is how a loaded GPU runs: no event for it.
  EXPECT_EQ(events_of(r),
            (std::vector<std::string>{"ecc_uncorrectable/error", "row_remap_failure/error",
                                      "row_remap_pending/warning", "page_retirement_pending/warning",
                                      "clock_slowdown/warning", "clock_slowdown/warning",
                                      "pcie_link_degraded/warning"}));
  EXPECT_EQ(r[2].fields["hardware"], true);
  EXPECT_EQ(r[2].fields["device"], "00000000:0F:00.0");
  EXPECT_EQ(r[2].fields["meaning"], "5 uncorrectable ECC error(s) in GPU memory");
  EXPECT_EQ(r[8].fields["meaning"], "PCIe link at x4 of x16");
}

TEST(NvidiaSmi, OlderDriversDoubleBitTotalsAndThrottleReasons) {
  TempDir dir;
  const auto r = read_smi(dir.write("q.xml", R"(<?xml version="1.0" ?>
<nvidia_smi_log><timestamp>Tue Mar  3 08:00:00 2020</timestamp>
<gpu id="0000:3B:00.0"><product_name>Tesla V100-SXM2-32GB</product_name>
<clocks_throttle_reasons><clocks_throttle_reason_hw_power_brake_slowdown>Active</clocks_throttle_reason_hw_power_brake_slowdown>
</clocks_throttle_reasons>
<ecc_errors><volatile><single_bit><device_memory>4</device_memory><total>4</total></single_bit>
<double_bit><device_memory>1</device_memory><total>1</total></double_bit></volatile></ecc_errors>
<retired_pages><multiple_single_bit_retirement><retired_count>0</retired_count></multiple_single_bit_retirement>
<double_bit_retirement><retired_count>2</retired_count></double_bit_retirement>
<pending_blacklist>No</pending_blacklist></retired_pages>
<power_readings><power_draw>250.00 W</power_draw><power_limit>300.00 W</power_limit></power_readings>
</gpu></nvidia_smi_log>
)"));
  ASSERT_EQ(r.size(), 4u);
  EXPECT_DOUBLE_EQ(r[0].fields["ecc_uncorrected_volatile"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(r[0].fields["ecc_corrected_volatile"].get<double>(), 4.0);
  EXPECT_DOUBLE_EQ(r[0].fields["power_limit_w"].get<double>(), 300.0);
  EXPECT_EQ(events_of(r),
            (std::vector<std::string>{"ecc_uncorrectable/error", "pages_retired_double_bit/warning",
                                      "clock_slowdown/warning"}));
  EXPECT_THAT(r[3].fields["meaning"].get<std::string>(), ::testing::HasSubstr("power brake"));
}

TEST(NvidiaSmi, ConsoleTablesOfBothLayouts) {
  TempDir dir;
  const auto wide = read_smi(dir.write("smi.txt", R"(Mon Jan  6 10:00:00 2025
+---------------------------------------------------------------------------------------+
| NVIDIA-SMI 535.54.03              Driver Version: 535.54.03    CUDA Version: 12.2     |
|-----------------------------------------+----------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |         Memory-Usage | GPU-Util  Compute M. |
|                                         |                      |               MIG M. |
|=========================================+======================+======================|
|   0  NVIDIA A100-SXM4-80GB          On  | 00000000:01:00.0 Off |                    0 |
| N/A   33C    P0              61W / 400W |      4MiB / 81920MiB |      0%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   1  NVIDIA A100-SXM4-80GB          On  | 00000000:41:00.0 Off |                    3 |
| N/A   35C    P0              64W / 400W |  70000MiB / 81920MiB |     97%      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+
|   2  NVIDIA A100-SXM4-80GB          On  | 00000000:81:00.0 Off |                 ERR! |
|ERR!  ERR!    ERR!             ERR! / ERR! |      0MiB / 81920MiB |    ERR!      Default |
|                                         |                      |             Disabled |
+-----------------------------------------+----------------------+----------------------+

+---------------------------------------------------------------------------------------+
| Processes:                                                                            |
|  GPU   GI   CI        PID   Type   Process name                            GPU Memory |
|    0   N/A  N/A     12345      C   python                                     4MiB |
+---------------------------------------------------------------------------------------+
)"));
  ASSERT_EQ(wide.size(), 3u + 2u);
  EXPECT_EQ(wide[0].fields["index"], 0);
  EXPECT_EQ(wide[0].fields["name"], "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(wide[0].fields["device"], "00000000:01:00.0");
  EXPECT_DOUBLE_EQ(wide[0].fields["temperature_c"].get<double>(), 33.0);
  EXPECT_DOUBLE_EQ(wide[0].fields["power_w"].get<double>(), 61.0);
  EXPECT_DOUBLE_EQ(wide[0].fields["power_limit_w"].get<double>(), 400.0);
  EXPECT_EQ(wide[0].fields["performance_state"], "P0");
  EXPECT_FALSE(wide[0].fields.contains("fan_pct"));
  EXPECT_DOUBLE_EQ(wide[1].fields["memory_used_mib"].get<double>(), 70000.0);
  EXPECT_DOUBLE_EQ(wide[1].fields["utilization_pct"].get<double>(), 97.0);
  EXPECT_EQ(wide[0].key.timestamp_ns, 1736157600000000000);
  EXPECT_EQ(wide[1].line, 13);
  EXPECT_EQ(events_of(wide), (std::vector<std::string>{"ecc_uncorrectable/error", "gpu_lost/error"}));
  EXPECT_EQ(wide[4].fields["device"], "00000000:81:00.0");

  const auto old = read_smi(
      dir.write("old.txt", R"(+-----------------------------------------------------------------------------+
| NVIDIA-SMI 470.57.02    Driver Version: 470.57.02    CUDA Version: 11.4     |
|-------------------------------+----------------------+----------------------+
| GPU  Name        Persistence-M| Bus-Id        Disp.A | Volatile Uncorr. ECC |
| Fan  Temp  Perf  Pwr:Usage/Cap|         Memory-Usage | GPU-Util  Compute M. |
|===============================+======================+======================|
|   0  Tesla T4            Off  | 00000000:00:04.0 Off |                    0 |
| 30%   47C    P8    10W /  70W |      0MiB / 15109MiB |      0%      Default |
+-------------------------------+----------------------+----------------------+
)"));
  ASSERT_EQ(old.size(), 1u);
  EXPECT_EQ(old[0].fields["name"], "Tesla T4");
  EXPECT_DOUBLE_EQ(old[0].fields["fan_pct"].get<double>(), 30.0);
  EXPECT_DOUBLE_EQ(old[0].fields["power_limit_w"].get<double>(), 70.0);
  EXPECT_DOUBLE_EQ(old[0].fields["memory_total_mib"].get<double>(), 15109.0);
  EXPECT_FALSE(old[0].key.has_timestamp());
}

TEST(NvidiaSmi, MalformedInputs) {
  TempDir dir;
  const std::string head = "<?xml version=\"1.0\" ?>\n<nvidia_smi_log>\n";
  const std::string banner =
      "| NVIDIA-SMI 535.54.03     Driver Version: 535.54.03    CUDA Version: 12.2 |\n"
      "|=====+=====+=====|\n";
  const std::vector<BadInput> bad = {
      {"mismatch", head + "<gpu id=\"0\">\n<product_name>X</product_name>\n</gpux>\n</nvidia_smi_log>\n",
       "5: expected well-formed XML: Start-end tags mismatch (at byte offset 86)"},
      {"cut", head + "<gpu id=\"0\">\n<product_name>X",
       "4: expected well-formed XML, got the end of the file inside an element (a capture cut short?) (at "
       "byte "
       "offset 67)"},
      {"attribute", head + "<gpu id=0>\n</gpu></nvidia_smi_log>\n",
       "3: expected well-formed XML: Error parsing element attribute (at byte offset 48)"},
      {"root", "<?xml version=\"1.0\" ?>\n<something><nvidia_smi_log/></something>\n",
       " expected an <nvidia_smi_log> document (nvidia-smi -q -x), got <something>"},
      {"no_gpu", head + "<timestamp>x</timestamp></nvidia_smi_log>\n",
       " expected at least one <gpu> in the <nvidia_smi_log> document"},
      {"gpu_id", head + "<gpu><product_name>X</product_name></gpu></nvidia_smi_log>\n",
       "3: expected a <gpu> with an id attribute (its PCI bus id) (at byte offset 41)"},
      {"nul", head + std::string("<gpu id=\"0\">\0</gpu>", 19),
       "3: expected text, got the control byte \\x00 at column 13 (binary data?) (line starts at byte offset "
       "40)"},
      {"utf8", head + "<gpu id=\"0\">\xc3\x28</gpu></nvidia_smi_log>\n",
       "3: expected UTF-8 text, got the byte \\xc3 at column 13 (binary data or another encoding?) (line "
       "starts at "
       "byte offset 40)"},
      {"big", head + std::string(600, ' ') + "</nvidia_smi_log>\n",
       " expected at most max_file_bytes = 512 bytes, got a larger file"},
      {"no_banner", "| nvidia smi |\n|   0  Tesla T4  Off  | 00000000:00:04.0 Off | 0 |\n",
       " expected the nvidia-smi banner ('| NVIDIA-SMI ... Driver Version: ...')"},
      {"no_rows", banner + "+-----+\n| Processes: |\n",
       " expected at least one GPU row below the nvidia-smi table header"},
      {"cells", banner + "|   0  Tesla T4  Off  | 00000000:00:04.0 Off |\n",
       "3: expected a GPU row of three cells between '|' bars, got 2 cell(s) (line starts at byte offset "
       "97)"},
      {"index", banner + "|   Tesla T4  Off  | 00000000:00:04.0 Off | 0 |\n",
       "3: expected a GPU row starting with the GPU index, got 'Tesla T4  Off' (line starts at byte offset "
       "97)"},
  };
  for (const auto& b : bad)
    EXPECT_EQ(check_bad_input(nvidia_smi_factory(), {{"max_file_bytes", 512}}, b, dir, "nvidia-smi.out"), "")
        << b.name;
}

TEST(NvidiaSmi, SniffAndFolders) {
  const auto& f = nvidia_smi_factory();
  EXPECT_EQ(f.sniff({"x/q.xml", "<?xml version=\"1.0\" ?>\n<!DOCTYPE nvidia_smi_log SYSTEM \"x\">\n", false}),
            90);
  EXPECT_EQ(f.sniff({"x/smi.txt", "| NVIDIA-SMI 535.54.03   Driver Version: 535.54.03 |\n", false}), 80);
  EXPECT_EQ(f.sniff({"x/dmesg.log", "[ 1.0] NVRM: Xid (PCI:0000:9b:00): 79\n", false}), 0);
  TempDir dir;
  dir.write("node/nvidia-smi.xml", kFaultyXml);
  dir.write("node/dmesg.log", "[ 1.0] NVRM: Xid (PCI:0000:9b:00): 79, pid=1, off the bus\n");
  Harness h(f, {{"path", dir / "node"}});
  ASSERT_EQ(run(h), "");
  const auto batches = record_batches(h);
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_THAT(batches[0].source_path, ::testing::EndsWith("nvidia-smi.xml"));
  EXPECT_EQ(batches[0].schema, "nvidia_smi.devices/1");
}

TEST(NvidiaSmi, RealCaptures) {
  if (!have_real("gpu_host/a100-sxm4-v12.xml")) GTEST_SKIP() << "no ../shared/real";
  const auto a100 = read_smi(real("gpu_host/a100-sxm4-v12.xml"));
  ASSERT_EQ(a100.size(), 1u);  // one healthy A100 (MIG on): no condition
  EXPECT_EQ(a100[0].fields["name"], "NVIDIA A100-SXM4-80GB");
  EXPECT_DOUBLE_EQ(a100[0].fields["max_sm_clock_mhz"].get<double>(), 1410.0);
  EXPECT_DOUBLE_EQ(a100[0].fields["ecc_uncorrected_volatile"].get<double>(), 0.0);
  const auto t4 = read_smi(real("gpu_host/tesla-t4.xml"));
  ASSERT_EQ(t4.size(), 2u);
  EXPECT_EQ(t4[0].fields["name"], "Tesla T4");
  EXPECT_EQ(events_of(t4), std::vector<std::string>{"pcie_link_degraded/warning"});  // x8 of x16
}

}  // namespace
}  // namespace cann_debug::plugins
