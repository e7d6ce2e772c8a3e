// Online diagnosis: `cann-debug collect --diagnose -- COMMAND` beside a scripted NPU (fake libdcmi.so)
// whose clock drops from 1.0 s to 2.0 s of a 5 s run. Each anomaly window of the recording is diagnosed
// while the run goes on (diagnoses.jsonl, fusion.json), and `diagnose --follow` of the finished folder
// marks and answers the same windows.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using cann_debug::testing::CliTest;
using nlohmann::json;

namespace {

constexpr int kFrom = 100, kTo = 200;  // samples (10 ms apart) of the throttle

/// "2026-12-04T20:38:39.853120Z" (fusion.json's times) as ns since the epoch.
std::int64_t iso_to_ns(const std::string& iso) {
  std::tm tm{};
  int micros = 0;
  std::sscanf(iso.c_str(), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour,
              &tm.tm_min, &tm.tm_sec, &micros);
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  return static_cast<std::int64_t>(::timegm(&tm)) * 1'000'000'000 + static_cast<std::int64_t>(micros) * 1000;
}

json npu_script(bool throttle) {
  json clock = 1800, temperature = {{"base", 62}, {"noise", 1}, {"seed", 3}};
  if (throttle) {
    clock = {{"base", 1800}, {"anomalies", {{{"from", kFrom}, {"to", kTo}, {"value", 1100}}}}};
    temperature["anomalies"] = {{{"from", kFrom}, {"to", kTo}, {"value", 97}}};
  }
  return {{"devices",
           {{{"card", 0},
             {"device", 0},
             {"logic_id", 0},
             {"values",
              {{"utilization.2", {{"base", 85}, {"noise", 3}, {"seed", 1}}},
               {"power", {{"base", 2800}, {"noise", 40}, {"seed", 2}}},
               {"temperature", temperature},
               {"frequency.7", clock},
               {"frequency.9", 1800},
               {"hbm.memory_size", 65536},
               {"hbm.memory_usage", {{"base", 30000}, {"noise", 200}, {"seed", 5}}},
               {"health", 0}}}}}}};
}

class CollectDiagnose : public CliTest {
 protected:
  CollectDiagnose() : CliTest("collect_diagnose") {}

  int collect(const std::string& run_dir, bool throttle, bool diagnose) {
    const auto script = scratch_ / (run_dir + ".json");
    std::ofstream(script) << npu_script(throttle).dump();
    ::setenv("CANN_DEBUG_FAKE_DCMI_SCRIPT", script.c_str(), 1);
    std::vector<std::string> args = {"collect",
                                     "--sources",
                                     "ascend_chip",
                                     "--interval",
                                     "10ms",
                                     "--set",
                                     std::string("ascend_chip.library=") + FAKE_DCMI_LIBRARY,
                                     "--set",
                                     "ascend_chip.slow_interval=0",
                                     "--scenario",
                                     "training",
                                     "--kb-outcomes",
                                     "",
                                     "--output",
                                     (scratch_ / run_dir).string()};
    if (diagnose) args.push_back("--diagnose");
    args.insert(args.end(), {"--", "/bin/sleep", "5"});
    return run(args, std::chrono::seconds(120));
  }
};

TEST_F(CollectDiagnose, EachWindowIsDiagnosedWhileTheRunGoesOn) {
  ASSERT_EQ(collect("throttled", true, true), 0) << child_->err();
  const auto rows = cann_debug::testing::read_jsonl(scratch_ / "throttled" / "diagnoses.jsonl");
  ASSERT_FALSE(rows.empty()) << child_->err();
  json fusion;
  std::ifstream(scratch_ / "throttled" / "fusion.json") >> fusion;
  ASSERT_EQ(fusion.at("anomaly_windows").size(), rows.size());
  EXPECT_TRUE(fusion.at("online").at("diagnose").get<bool>());
  EXPECT_EQ(fusion.at("online").at("diagnosed"), rows.size());

  // The drop and the recovery of the clock: each window names the clock (or the temperature that came with
  // it), is answered with device_throttling, and was answered while the workload still ran (it ran until
  // 5 s; the recovery window closes at about 2.7 s).
  int throttle_windows = 0;
  for (const auto& row : rows) {
    ASSERT_TRUE(row.contains("diagnosis")) << row.dump();
    bool names_the_device = false;
    for (const auto& s : row.at("series"))
      names_the_device =
          names_the_device || s.at("name") == "npu.aicore.frequency" || s.at("name") == "npu.temperature";
    if (!names_the_device) continue;
    ++throttle_windows;
    EXPECT_EQ(row.at("diagnosis").at("top_cause"), "device_throttling") << row.dump();
    EXPECT_EQ(row.at("closed_by"), "quiet") << row.dump();
    EXPECT_LT(row.at("diagnosed_ns").get<std::int64_t>(),
              iso_to_ns(fusion.at("workload").at("ended_at").get<std::string>()))
        << "diagnosed before the workload ended: " << row.dump();
  }
  EXPECT_EQ(throttle_windows, 2) << "the drop and the recovery";
  EXPECT_NE(child_->err().find("device_throttling"), std::string::npos) << "printed as it happened";
}

TEST_F(CollectDiagnose, AHealthyDeviceOpensNoWindowOfItsOwn) {
  ASSERT_EQ(collect("healthy", false, true), 0) << child_->err();
  json fusion;
  std::ifstream(scratch_ / "healthy" / "fusion.json") >> fusion;
  for (const auto& w : fusion.at("anomaly_windows"))
    for (const auto& s : w.at("series"))
      EXPECT_NE(s.at("name").get<std::string>().rfind("npu.", 0), 0u)
          << "a window on a healthy NPU: " << w.dump();
}

TEST_F(CollectDiagnose, FollowOfAFinishedFolderAnswersTheSameWindows) {
  ASSERT_EQ(collect("marked", true, false), 0) << child_->err();
  json fusion;
  std::ifstream(scratch_ / "marked" / "fusion.json") >> fusion;
  const auto marked = fusion.at("anomaly_windows");
  ASSERT_GE(marked.size(), 2u);
  EXPECT_FALSE(fs::exists(scratch_ / "marked" / "diagnoses.jsonl"))
      << "windows are only marked without --diagnose";

  ASSERT_EQ(run({"diagnose", "--follow", (scratch_ / "marked").string(), "--scenario", "training",
                 "--kb-outcomes", "", "--json"}),
            0)
      << child_->err();
  const auto rows = cann_debug::testing::read_jsonl(scratch_ / "marked" / "diagnoses.jsonl");
  ASSERT_EQ(rows.size(), marked.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    EXPECT_EQ(rows[i].at("start_ns"), marked[i].at("start_ns")) << "the same detector, the same windows";
    EXPECT_EQ(rows[i].at("diagnosis").at("top_cause"), "device_throttling");
  }
  // --json prints the same rows on stdout, one per line.
  std::istringstream out(child_->out());
  std::string line;
  std::size_t printed = 0;
  while (std::getline(out, line)) printed += json::parse(line).contains("window") ? 1 : 0;
  EXPECT_EQ(printed, rows.size());
}

TEST_F(CollectDiagnose, FollowNeedsAFolderAndNotAlsoAnInput) {
  EXPECT_NE(run({"diagnose", "--follow", scratch_.string(), "--input", scratch_.string()}), 0);
  EXPECT_NE(child_->err().find("--follow"), std::string::npos) << child_->err();
}

}  // namespace
