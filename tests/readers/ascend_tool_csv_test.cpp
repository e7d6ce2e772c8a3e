// ascend_tool_csv: the real npu-smi and hccn_tool CSV series, and bad input.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ascend_tool_csv.hpp"
#include "readers_test_support.hpp"

namespace cann_debug::plugins {
namespace {

using namespace readers_test;
using testing::Harness;

TEST(AscendToolCsv, RealNpuSmiSeries) {
  if (!have_real("ascend/npu-smi/npu_smi_0_details.csv")) GTEST_SKIP() << "shared real data absent";
  EXPECT_THAT(check_manifest(ascend_tool_csv_factory().manifest()), ::testing::IsEmpty());
  Harness h(ascend_tool_csv_factory(), {{"path", real("ascend/npu-smi/npu_smi_0_details.csv")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 69u);  // 23 samples x power, freq, temp
  const auto power = find(m, "npu.power");
  ASSERT_EQ(power.size(), 23u);
  EXPECT_DOUBLE_EQ(power[0].value, 69.6);
  EXPECT_EQ(power[0].unit, "watts");
  EXPECT_EQ(power[0].key.timestamp_ns, 1670052428000000000);
  EXPECT_EQ(power[0].key.device, 0);
  EXPECT_EQ(power[0].labels.at("source_name"), "power");
  EXPECT_DOUBLE_EQ(power[6].value, 150.6);  // 1670052538: the load starts
  const auto freq = find(m, "npu.aicore.frequency");
  EXPECT_EQ(freq[0].value, 1e9);
  EXPECT_EQ(freq[6].value, 8e8);  // 800 MHz while hot
  const auto temp = find(m, "npu.temperature");
  EXPECT_EQ(temp[9].value, 107.0);
  EXPECT_EQ(temp[9].key.timestamp_ns, 1670052581000000000);
}

TEST(AscendToolCsv, RealHccnToolSeries) {
  if (!have_real("ascend/hccn_tool/npu_0_details.csv")) GTEST_SKIP() << "shared real data absent";
  Harness h(ascend_tool_csv_factory(), {{"path", real("ascend/hccn_tool/npu_0_details.csv")}});
  ASSERT_EQ(run(h), "");
  const auto m = metrics(h);
  EXPECT_EQ(m.size(), 3u * 37u);  // 41 columns - timestamp, npu_index, report_time, host_ip
  const Labels first{{"device", "0"}};
  const auto pfc = find(m, "roce.port.pfc_sent", first);
  ASSERT_EQ(pfc.size(), 3u);
  EXPECT_EQ(pfc[0].value, 1162474.0);
  EXPECT_EQ(pfc[0].key.timestamp_ns, 1667935036000000000);
  EXPECT_EQ(pfc[0].labels.count("node"), 0u);  // host_ip holds the placeholder "host_ip"
  EXPECT_EQ(find(m, "roce.port.pfc_sent_by_priority", {{"priority", "4"}})[0].value, 1162471.0);
  EXPECT_EQ(find(m, "roce.port.pfc_received")[1].value, 1014612628.0);
  const auto bytes = find(m, "roce.port.mac_tx_bytes");
  EXPECT_EQ(bytes[0].value, 8.07084e13);  // written 8.07084E+13 in the file
  EXPECT_EQ(bytes[0].unit, "bytes");
  EXPECT_EQ(find(m, "roce.port.cqe")[2].value, 10723232.0);
  EXPECT_EQ(find(m, "roce.port.rx_packets")[1].value, 3359622842.0);
  EXPECT_EQ(find(m, "roce.port.cnp_sent")[0].value, 0.0);
}

TEST(AscendToolCsv, MalformedInputs) {
  TempDir dir;
  const std::string H = "time,dev_id,power,freq,temp\n";
  const std::string good = "1670052428,0,69.6,1000,42\n";
  const std::string g = std::to_string(H.size() + good.size());
  const std::vector<BadInput> cases = {
      {"no_time", "dev_id,power\n0,1\n",
       "1: expected a 'time' or 'timestamp' column (Unix seconds) in the header of a sampled series (line "
       "starts at "
       "byte offset 0)"},
      {"bad_time", H + good + "yesterday,0,1,1,1\n",
       "3: expected Unix seconds in 'time', got 'yesterday' (line starts at byte offset " + g + ")"},
      {"bad_device", H + good + "1670052442,npu0,1,1,1\n",
       "3: expected a device number in 'dev_id', got 'npu0' (line starts at byte offset " + g + ")"},
      {"negative_device", H + good + "1670052442,-1,1,1,1\n",
       "3: expected a device number in 'dev_id', got '-1' (line starts at byte offset " + g + ")"},
      {"bad_value", H + good + "1670052442,0,1,1,hot\n",
       "3: expected a number in 'temp' (column 5), got 'hot' (line starts at byte offset " + g + ")"},
      {"nul", H + good + std::string("16700\0,0,1,1,1\n", 15),
       "3: expected text, got the control byte \\x00 at column 6 (binary data?) (line starts at byte "
       "offset " +
           g + ")"},
      {"utf8", H + good + "1670052442,0,\xe2\x82,1,1\n",
       "3: expected UTF-8 text, got the byte \\xe2 at column 14 (binary data or another encoding?) (line "
       "starts at byte "
       "offset " +
           g + ")"},
      {"unterminated", H + good + "1670052442,\"0,1,1,1\n",
       "3: expected a closing quote for a field opened in the row starting on this line, got the end of the "
       "file "
       "(line starts at byte offset " +
           g + ")"},
      {"duplicate", "time,temp,Temp\n1,2,3\n",
       "1: expected unique column names, but 'temp' (column 2) and 'Temp' (column 3) both mean 'temp' (line "
       "starts at "
       "byte offset 0)"},
      {"long_line", H + good + std::string(5 << 20, '1') + "\n",
       "3: expected a line of at most max_line_bytes = 1048576 bytes, got a longer one (binary data or a "
       "missing "
       "newline?) (line starts at byte offset " +
           g + ")"},
  };
  for (const auto& bad : cases)
    EXPECT_EQ(check_bad_input(ascend_tool_csv_factory(), {{"max_line_bytes", "1MiB"}}, bad, dir, "npu_0.csv"),
              "")
        << bad.name;
}

}  // namespace
}  // namespace cann_debug::plugins
