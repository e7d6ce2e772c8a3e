// Tests of the ascend_chip sampler against the fake libdcmi.so and the fake npu-smi.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <chrono>

#include "ascend_chip.hpp"
#include "ascend_test_support.hpp"
#include "cann_debug/sampler/dynamic_library.hpp"

namespace cann_debug::plugins {
namespace {

using namespace ascend_test;
using test::TempDir;
using ::testing::HasSubstr;

const std::string kFakeNpuSmi = std::string(FAKE_TOOLS_DIR) + "/npu-smi";

nlohmann::json dcmi_options(nlohmann::json extra = nlohmann::json::object()) {
  nlohmann::json o = {{"backend", "dcmi"}, {"library", FAKE_DCMI_LIBRARY}};
  o.update(extra);
  return o;
}

nlohmann::json typical_values() {
  return {{"utilization.2", 37},
          {"utilization.12", 20},
          {"utilization.3", 1},
          {"power", 1640},
          {"temperature", 52},
          {"frequency.7", 800},
          {"frequency.9", 1800},
          {"hbm.memory_size", 65536},
          {"hbm.memory_usage", 3434},
          {"hbm.freq", 1600},
          {"hbm.temp", 45},
          {"hbm.bandwith_util_rate", 12},
          {"health", 1},
          {"error_codes", {0x80E01801u, 0x80CB8009u}}};
}

TEST(AscendChip, ManifestIsSound) {
  const auto& m = ascend_chip_factory().manifest();
  EXPECT_THAT(check_manifest(m), ::testing::IsEmpty());
  EXPECT_EQ(m.kind, ComponentKind::kSampler);
  EXPECT_EQ(m.outputs.at(0).produces, "metric.frame/1");
}

TEST(AscendChip, DcmiValuesAreConvertedToOurUnits) {
  TempDir dir("chip");
  use_script(dir, one_device(typical_values()));
  testing::Harness h(ascend_chip_factory(), dcmi_options());
  const auto b = poll_n(h, 1).at(0);
  EXPECT_DOUBLE_EQ(value(b, "npu.power"), 164.0);  // 0.1 W units
  EXPECT_EQ(find(b, "npu.power")->unit, "watts");
  EXPECT_DOUBLE_EQ(value(b, "npu.aicore.utilization"), 0.37);
  EXPECT_DOUBLE_EQ(value(b, "npu.aivector.utilization"), 0.20);
  EXPECT_DOUBLE_EQ(value(b, "npu.aicpu.utilization"), 0.01);
  EXPECT_EQ(find(b, "npu.aicore.utilization")->unit, "ratio");
  EXPECT_DOUBLE_EQ(value(b, "npu.temperature"), 52);
  EXPECT_EQ(find(b, "npu.temperature")->unit, "celsius");
  EXPECT_DOUBLE_EQ(value(b, "npu.aicore.frequency"), 800e6);
  EXPECT_DOUBLE_EQ(value(b, "npu.aicore.rated_frequency"), 1800e6);
  EXPECT_EQ(find(b, "npu.aicore.frequency")->unit, "hertz");
  EXPECT_DOUBLE_EQ(value(b, "npu.hbm.capacity"), 65536.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(value(b, "npu.hbm.used"), 3434.0 * 1024 * 1024);
  EXPECT_EQ(find(b, "npu.hbm.used")->unit, "bytes");
  EXPECT_DOUBLE_EQ(value(b, "npu.hbm.utilization"), 3434.0 / 65536.0);
  EXPECT_DOUBLE_EQ(value(b, "npu.hbm.bandwidth_utilization"), 0.12);
  EXPECT_DOUBLE_EQ(value(b, "npu.hbm.frequency"), 1600e6);
  EXPECT_DOUBLE_EQ(value(b, "npu.hbm.temperature"), 45);
  EXPECT_DOUBLE_EQ(value(b, "npu.health", {{"health", "Warning"}}), 1);
  EXPECT_DOUBLE_EQ(value(b, "npu.error_count"), 2);
  EXPECT_DOUBLE_EQ(value(b, "npu.error_code", {{"code", "0x80E01801"}}), 0x80E01801u);
  EXPECT_DOUBLE_EQ(value(b, "npu.error_code", {{"code", "0x80CB8009"}}), 0x80CB8009u);
  const auto p = *find(b, "npu.power");
  EXPECT_EQ(p.labels.at("device"), "0");
  EXPECT_EQ(p.labels.at("source_name"), "dcmi_get_device_power_info");
  EXPECT_EQ(p.key.device, 0);
  EXPECT_EQ(p.key.timestamp_ns, kT0);
  EXPECT_FALSE(find(b, "sampler.skipped_readings"));
}

TEST(AscendChip, SlowReadingsAtMostOncePerSlowIntervalTheRestEverySample) {
  TempDir dir("chip");
  use_script(dir, one_device(typical_values()));
  testing::Harness h(ascend_chip_factory(), dcmi_options({{"interval", "10ms"}, {"slow_interval", "1s"}}));
  const auto b = poll_n(h, 201, 10'000'000);  // 0 .. 2 s
  for (const char* slow : {"npu.temperature", "npu.aicore.rated_frequency", "npu.error_count"}) {
    std::vector<int> at;
    for (int i = 0; i < 201; ++i)
      if (find(b[i], slow)) at.push_back(i);
    EXPECT_EQ(at, (std::vector<int>{0, 100, 200})) << slow;
  }
  EXPECT_TRUE(find(b[100], "npu.health", {{"health", "Warning"}}));
  EXPECT_FALSE(find(b[150], "npu.health", {{"health", "Warning"}}));
  for (const char* fast :
       {"npu.power", "npu.aicore.utilization", "npu.aicore.frequency", "npu.hbm.used", "npu.hbm.temperature"})
    EXPECT_TRUE(find(b[150], fast)) << fast;
  testing::Harness every(ascend_chip_factory(),
                         dcmi_options({{"interval", "10ms"}, {"slow_interval", "0s"}}));
  const auto e = poll_n(every, 3, 10'000'000);
  EXPECT_TRUE(find(e[1], "npu.temperature"));
  EXPECT_TRUE(find(e[2], "npu.error_count"));
}

TEST(AscendChip, InvalidTemperaturesGiveNoPointAndAreCounted) {
  TempDir dir("chip");
  use_script(dir, one_device({{"temperature", {52, "0x7ffd", "0x7fff", 53}}, {"power", 1000}}));
  testing::Harness h(ascend_chip_factory(), dcmi_options());
  const auto b = poll_n(h, 4);
  EXPECT_DOUBLE_EQ(value(b[0], "npu.temperature"), 52);
  EXPECT_FALSE(find(b[1], "npu.temperature"));
  EXPECT_FALSE(find(b[2], "npu.temperature"));
  EXPECT_DOUBLE_EQ(value(b[3], "npu.temperature"), 53);
  EXPECT_DOUBLE_EQ(value(b[1], "npu.power"), 100);  // the rest of the sample is there
  EXPECT_DOUBLE_EQ(value(b[1], "sampler.skipped_readings", {{"reason", "invalid (0x7ffd)"}}), 1);
  EXPECT_FALSE(find(b[1], "sampler.skipped_readings", {{"reason", "read failed (0x7fff)"}}));
  EXPECT_DOUBLE_EQ(value(b[3], "sampler.skipped_readings", {{"reason", "read failed (0x7fff)"}}), 1);
  EXPECT_EQ(
      find(b[3], "sampler.skipped_readings", {{"reason", "invalid (0x7ffd)"}})->labels.at("source_name"),
      "dcmi_get_device_temperature");
}

TEST(AscendChip, ErrorCodeSkipsThatPointWithTheReasonLoggedOnce) {
  TempDir dir("chip");
  use_script(dir, one_device({{"power", 1500}, {"temperature", 50}},
                             {{"dcmi_get_device_power_info", {{"1", -8005}, {"2", -8005}}}}));
  testing::Harness h(ascend_chip_factory(), dcmi_options());
  const auto b = poll_n(h, 4);
  EXPECT_TRUE(find(b[0], "npu.power"));
  EXPECT_FALSE(find(b[1], "npu.power"));
  EXPECT_FALSE(find(b[2], "npu.power"));
  EXPECT_DOUBLE_EQ(value(b[3], "npu.power"), 150);
  EXPECT_DOUBLE_EQ(value(b[2], "npu.temperature"), 50);
  const Labels why = {{"source_name", "dcmi_get_device_power_info"},
                      {"reason", "-8005 (DCMI_ERR_CODE_INNER_ERR)"}};
  EXPECT_DOUBLE_EQ(value(b[2], "sampler.skipped_readings", why), 2);
  int warnings = 0;
  for (const auto& [level, line] : h.host.log.lines)
    if (level == LogLevel::kWarn && line.find("dcmi_get_device_power_info") != std::string::npos) {
      ++warnings;
      EXPECT_THAT(line, HasSubstr("-8005"));
    }
  EXPECT_EQ(warnings, 1);
}

TEST(AscendChip, UnsupportedCallIsNotMadeAgain) {
  TempDir dir("chip");
  use_script(dir, one_device({{"power", 1500}}, {{"dcmi_get_device_errorcode_v2", -8255}}));
  testing::Harness h(ascend_chip_factory(), dcmi_options());
  const auto b = poll_n(h, 3);
  sampler_support::DynamicLibrary fake;
  ASSERT_TRUE(fake.open({FAKE_DCMI_LIBRARY}));
  auto* calls = fake.function<long long(const char*)>("fake_dcmi_calls");
  ASSERT_NE(calls, nullptr);
  EXPECT_EQ(calls("dcmi_get_device_errorcode_v2"), 1);
  EXPECT_EQ(calls("dcmi_get_device_power_info"), 3);
  EXPECT_FALSE(find(b[2], "npu.error_count"));
  EXPECT_DOUBLE_EQ(value(b[2], "sampler.skipped_readings", {{"reason", "-8255 (DCMI_ERR_CODE_NOT_SUPPORT)"}}),
                   1);
}

TEST(AscendChip, MissingLibraryIsAReasonNotACrash) {
  const nlohmann::json options = {{"backend", "dcmi"}, {"library", "/nonexistent/libdcmi.so"}};
  std::vector<OptionIssue> issues;
  const Config config = resolve_config(ascend_chip_factory().manifest().options, options, issues);
  const Availability a = ascend_chip_factory().probe(config);
  EXPECT_FALSE(a.available);
  EXPECT_THAT(a.reason, HasSubstr("/nonexistent/libdcmi.so not found: "));
  EXPECT_THAT(a.reason, HasSubstr("No such file"));  // dlerror()'s words
  testing::Harness h(ascend_chip_factory(), options);
  EXPECT_THAT([&] { h.component().start(); },
              ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("not found")));
}

TEST(AscendChip, ProbeSaysWhenThereIsNoNpuOrTheDriverFails) {
  TempDir dir("chip");
  std::vector<OptionIssue> issues;
  const Config config = resolve_config(ascend_chip_factory().manifest().options, dcmi_options(), issues);
  use_script(dir, {{"devices", nlohmann::json::array()}});
  EXPECT_EQ(ascend_chip_factory().probe(config).reason, "no NPU: dcmi_get_card_list returned 0 cards");
  use_script(dir, {{"init", -8005}, {"devices", nlohmann::json::array()}});
  EXPECT_THAT(ascend_chip_factory().probe(config).reason, HasSubstr("dcmi_init failed: -8005"));
  use_script(dir, one_device(typical_values()));
  EXPECT_TRUE(ascend_chip_factory().probe(config).available);
}

TEST(AscendChip, DevicesSelectsByLogicalId) {
  TempDir dir("chip");
  use_script(dir, {{"devices",
                    {{{"card", 0}, {"device", 0}, {"logic_id", 0}, {"values", {{"power", 1000}}}},
                     {{"card", 1}, {"device", 0}, {"logic_id", 1}, {"values", {{"power", 2000}}}}}}});
  testing::Harness all(ascend_chip_factory(), dcmi_options());
  const auto b = poll_n(all, 1).at(0);
  EXPECT_DOUBLE_EQ(value(b, "npu.power", {{"device", "0"}}), 100);
  EXPECT_DOUBLE_EQ(value(b, "npu.power", {{"device", "1"}}), 200);
  testing::Harness one(ascend_chip_factory(), dcmi_options({{"devices", {"1"}}}));
  const auto c = poll_n(one, 1).at(0);
  EXPECT_FALSE(find(c, "npu.power", {{"device", "0"}}));
  EXPECT_DOUBLE_EQ(value(c, "npu.power", {{"device", "1"}}), 200);
  EXPECT_EQ(find(c, "npu.power")->key.device, 1);
}

TEST(AscendChip, FakeSteadyNoiseAndAnomalyWindowsAreDeterministic) {
  TempDir dir("chip");
  const nlohmann::json util = {
      {"base", 80}, {"noise", 3}, {"seed", 7}, {"anomalies", {{{"from", 5}, {"to", 8}, {"value", 2}}}}};
  use_script(dir, one_device({{"utilization.2", util},
                              {"power",
                               {{"base", 3000},
                                {"noise", 50},
                                {"seed", 1},
                                {"anomalies", {{{"from", 5}, {"to", 8}, {"scale", 0.5}}}}}}}));
  auto run = [] {
    testing::Harness h(ascend_chip_factory(), dcmi_options());
    std::vector<double> v;
    for (const auto& b : poll_n(h, 10)) v.push_back(value(b, "npu.aicore.utilization"));
    return v;
  };
  const auto first = run();
  TempDir other("chip");  // a new script file: the fake starts its timeline again
  use_script(other, one_device({{"utilization.2", util}}));
  EXPECT_EQ(run(), first);
  for (int k = 0; k < 10; ++k) {
    if (k >= 5 && k < 8) {
      EXPECT_DOUBLE_EQ(first[k], 0.02) << k;
    } else {
      EXPECT_NEAR(first[k], 0.80, 0.03 + 1e-9) << k;  // 80 % +- 3
    }
  }
  EXPECT_NE(first[0], first[1]);  // there is noise
}

TEST(AscendChip, NpuSmiFallbackGivesTheSameNamesAndValues) {
  testing::Harness h(ascend_chip_factory(), {{"backend", "npu_smi"}, {"npu_smi", kFakeNpuSmi}});
  const auto b = poll_n(h, 1).at(0);
  EXPECT_DOUBLE_EQ(value(b, "npu.power", {{"device", "1"}}), 98.5);
  EXPECT_DOUBLE_EQ(value(b, "npu.aicore.utilization", {{"device", "0"}}), 0.37);
  EXPECT_DOUBLE_EQ(value(b, "npu.aivector.utilization", {{"device", "0"}}), 0.20);
  EXPECT_DOUBLE_EQ(value(b, "npu.aicore.frequency", {{"device", "0"}}), 800e6);
  EXPECT_DOUBLE_EQ(value(b, "npu.aicore.rated_frequency", {{"device", "0"}}), 1800e6);
  EXPECT_DOUBLE_EQ(value(b, "npu.temperature", {{"device", "0"}}), 52);
  EXPECT_DOUBLE_EQ(value(b, "npu.hbm.capacity", {{"device", "0"}}), 65536.0 * 1024 * 1024);
  EXPECT_DOUBLE_EQ(value(b, "npu.health", {{"device", "0"}, {"health", "OK"}}), 0);
  int aicore = 0;  // printed by both -t usages and -t common: kept once
  for (const auto& p : b.points) aicore += p.name == "npu.aicore.utilization" && p.labels.at("device") == "0";
  EXPECT_EQ(aicore, 1);

  // The names (and units) DCMI gives for the same quantities.
  TempDir dir("chip");
  use_script(dir, one_device(typical_values()));
  testing::Harness d(ascend_chip_factory(), dcmi_options());
  const auto dcmi_names = names_and_units(poll_n(d, 1).at(0));
  const auto smi_names = names_and_units(b);
  for (const char* name :
       {"npu.aicore.utilization", "npu.aivector.utilization", "npu.aicpu.utilization", "npu.hbm.capacity",
        "npu.hbm.utilization", "npu.hbm.bandwidth_utilization", "npu.power", "npu.temperature",
        "npu.aicore.frequency", "npu.aicore.rated_frequency", "npu.health"}) {
    ASSERT_TRUE(dcmi_names.contains(name)) << name;
    ASSERT_TRUE(smi_names.contains(name)) << name;
    EXPECT_EQ(dcmi_names.at(name), smi_names.at(name)) << name;
  }
}

TEST(AscendChip, AutoFallsBackToNpuSmiAndProbeNamesBoth) {
  const nlohmann::json options = {{"library", "/nonexistent/libdcmi.so"}, {"npu_smi", kFakeNpuSmi}};
  std::vector<OptionIssue> issues;
  const Config config = resolve_config(ascend_chip_factory().manifest().options, options, issues);
  const auto a = ascend_chip_factory().probe(config);
  EXPECT_TRUE(a.available);
  EXPECT_EQ(a.reason, "npu-smi");
  testing::Harness h(ascend_chip_factory(), options);
  EXPECT_TRUE(find(poll_n(h, 1).at(0), "npu.power"));

  const Config neither =
      resolve_config(ascend_chip_factory().manifest().options,
                     {{"library", "/nonexistent/libdcmi.so"}, {"npu_smi", "no-such-npu-smi-cd"}}, issues);
  const auto b = ascend_chip_factory().probe(neither);
  EXPECT_FALSE(b.available);
  EXPECT_THAT(b.reason, HasSubstr("DCMI: /nonexistent/libdcmi.so not found"));
  EXPECT_THAT(b.reason, HasSubstr("npu-smi: no-such-npu-smi-cd not on PATH"));
}

TEST(AscendChip, HungNpuSmiCostsOneSampleNotTheRun) {
  testing::Harness h(ascend_chip_factory(),
                     {{"backend", "npu_smi"}, {"npu_smi", kFakeNpuSmi}, {"command_timeout", "200ms"}});
  h.component().start();
  ::setenv("CANN_DEBUG_FAKE_TOOL_SLEEP", "10", 1);
  const auto start = std::chrono::steady_clock::now();
  h.component().poll(h.out);
  ::unsetenv("CANN_DEBUG_FAKE_TOOL_SLEEP");
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(8));
  const auto& b = metric_points_of(h.out.emitted.back().second);
  EXPECT_FALSE(find(b, "npu.power"));
  EXPECT_DOUBLE_EQ(
      value(b, "sampler.skipped_readings", {{"source_name", "npu-smi info -t usages"}, {"device", "0"}}), 1);
  h.component().poll(h.out);
  EXPECT_TRUE(find(metric_points_of(h.out.emitted.back().second), "npu.power"));
}

}  // namespace
}  // namespace cann_debug::plugins
