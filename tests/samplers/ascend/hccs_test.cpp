// Tests of the hccs sampler against the fake libdcmi.so.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "ascend_test_support.hpp"
#include "hccs.hpp"

namespace cann_debug::plugins {
namespace {

using namespace ascend_test;
using test::TempDir;
using ::testing::HasSubstr;

nlohmann::json options(nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json o = {{"library", FAKE_DCMI_LIBRARY}};
  o.update(extra);
  return o;
}

TEST(Hccs, ManifestIsSound) {
  EXPECT_THAT(check_manifest(hccs_factory().manifest()), ::testing::IsEmpty());
}

TEST(Hccs, BandwidthInBytesPerSecondPerLinkAndDevice) {
  TempDir dir("hccs");
  use_script(
      dir, one_device(
               {{"hccs.tx_bandwidth.0", 12.5}, {"hccs.rx_bandwidth.0", 0.25}, {"hccs.tx_bandwidth.3", 1.5}}));
  testing::Harness h(hccs_factory(), options());
  const auto b = poll_n(h, 1).at(0);
  EXPECT_DOUBLE_EQ(value(b, "hccs.link.tx_bandwidth", {{"link", "0"}}), 12.5e9);  // GB/s -> bytes/s
  EXPECT_DOUBLE_EQ(value(b, "hccs.link.rx_bandwidth", {{"link", "0"}}), 0.25e9);
  EXPECT_DOUBLE_EQ(value(b, "hccs.link.tx_bandwidth", {{"link", "3"}}), 1.5e9);
  EXPECT_DOUBLE_EQ(value(b, "hccs.device.tx_bandwidth"), 14e9);
  EXPECT_DOUBLE_EQ(value(b, "hccs.device.rx_bandwidth"), 0.25e9);
  const auto p = *find(b, "hccs.link.tx_bandwidth", {{"link", "0"}});
  EXPECT_EQ(p.unit, "bytes/s");
  EXPECT_EQ(p.labels.at("device"), "0");
  EXPECT_EQ(p.labels.at("source_name"), "tx_bandwidth");
  EXPECT_FALSE(find(b, "hccs.link.tx_bandwidth", {{"link", "1"}}));  // never used: left out
  EXPECT_DOUBLE_EQ(value(b, "hccs.status", {{"hdlc_status", "0x3"}}), 1);

  testing::Harness all(hccs_factory(), options({{"all_links", true}, {"links", 8}}));
  const auto c = poll_n(all, 1).at(0);
  EXPECT_DOUBLE_EQ(value(c, "hccs.link.tx_bandwidth", {{"link", "1"}}), 0);
  EXPECT_FALSE(find(c, "hccs.link.tx_bandwidth", {{"link", "8"}}));
}

TEST(Hccs, StatusAtMostOncePerSlowIntervalBandwidthEverySample) {
  TempDir dir("hccs");
  use_script(dir, one_device({{"hccs.tx_bandwidth.0", 12.5}}));
  testing::Harness h(hccs_factory(), options({{"interval", "10ms"}, {"slow_interval", "50ms"}}));
  const auto b = poll_n(h, 11, 10'000'000);
  std::vector<int> status;
  for (int i = 0; i < 11; ++i) {
    EXPECT_DOUBLE_EQ(value(b[i], "hccs.link.tx_bandwidth", {{"link", "0"}}), 12.5e9) << i;
    if (find(b[i], "hccs.status", {{"hdlc_status", "0x3"}})) status.push_back(i);
  }
  EXPECT_EQ(status, (std::vector<int>{0, 5, 10}));
}

TEST(Hccs, CountersBecomeRatesAndDeltasAcrossAWrap) {
  TempDir dir("hccs");
  // u32 registers: 4294967396 is read as 100 after the wrap.
  use_script(dir, one_device({{"hccs.crc_err_cnt.2", {4294967290ll, 4294967396ll, 4294967400ll}},
                              {"hccs.tx_cnt.2", {{"base", 1000}, {"step", 500}}}}));
  testing::Harness h(hccs_factory(), options());
  const auto b = poll_n(h, 3);
  EXPECT_FALSE(find(b[0], "hccs.link.crc_errors"));  // first reading only primes
  EXPECT_DOUBLE_EQ(value(b[1], "hccs.link.crc_errors.delta", {{"link", "2"}}), 106);
  EXPECT_DOUBLE_EQ(value(b[1], "hccs.link.crc_errors", {{"link", "2"}}), 53);  // per second over 2 s
  EXPECT_EQ(find(b[1], "hccs.link.crc_errors")->unit, "count/s");
  EXPECT_EQ(find(b[1], "hccs.link.crc_errors.delta")->unit, "count");
  EXPECT_EQ(find(b[1], "hccs.link.crc_errors")->labels.at("source_name"), "crc_err_cnt");
  EXPECT_DOUBLE_EQ(value(b[2], "hccs.link.crc_errors.delta", {{"link", "2"}}), 4);
  EXPECT_DOUBLE_EQ(value(b[1], "hccs.link.tx_packets", {{"link", "2"}}), 250);
}

TEST(Hccs, ResetGivesNoSpike) {
  TempDir dir("hccs");
  use_script(dir, one_device({{"hccs.retry_cnt.0", {1000, 1500, 20, 30}}}));
  testing::Harness h(hccs_factory(), options());
  const auto b = poll_n(h, 4);
  EXPECT_DOUBLE_EQ(value(b[1], "hccs.link.retries.delta", {{"link", "0"}}), 500);
  EXPECT_FALSE(find(b[2], "hccs.link.retries"));
  EXPECT_FALSE(find(b[2], "hccs.link.retries.delta"));
  EXPECT_DOUBLE_EQ(value(b[3], "hccs.link.retries.delta", {{"link", "0"}}), 10);
}

TEST(Hccs, LinkDownAndErrorCodes) {
  TempDir dir("hccs");
  use_script(dir,
             one_device({{"hccs.hdlc_status", {3, 0}}, {"hccs.pcs_status", 17}, {"hccs.tx_bandwidth.0", 1}},
                        {{"dcmi_get_device_info.16.3", {{"1", -8005}}}}));
  testing::Harness h(hccs_factory(), options());
  const auto b = poll_n(h, 2);
  EXPECT_DOUBLE_EQ(value(b[0], "hccs.status"), 1);
  EXPECT_DOUBLE_EQ(value(b[1], "hccs.status", {{"hdlc_status", "0x0"}, {"pcs_status", "0x11"}}), 0);
  EXPECT_DOUBLE_EQ(value(b[1], "hccs.link.tx_bandwidth", {{"link", "0"}}), 1e9);
  EXPECT_DOUBLE_EQ(value(b[1], "sampler.skipped_readings",
                         {{"source_name", "dcmi_get_device_info(HCCS, statistics)"},
                          {"reason", "-8005 (DCMI_ERR_CODE_INNER_ERR)"}}),
                   1);
}

TEST(Hccs, ProbeReasons) {
  std::vector<OptionIssue> issues;
  const auto& schema = hccs_factory().manifest().options;
  const auto missing =
      hccs_factory().probe(resolve_config(schema, {{"library", "/nonexistent/libdcmi.so"}}, issues));
  EXPECT_FALSE(missing.available);
  EXPECT_THAT(missing.reason, HasSubstr("/nonexistent/libdcmi.so not found: "));
  TempDir dir("hccs");
  use_script(dir, {{"devices", nlohmann::json::array()}});
  EXPECT_EQ(hccs_factory().probe(resolve_config(schema, options(), issues)).reason,
            "no NPU: dcmi_get_card_list returned 0 cards");
}

}  // namespace
}  // namespace cann_debug::plugins
