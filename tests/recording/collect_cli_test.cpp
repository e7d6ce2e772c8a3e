// `cann-debug collect` end to end: the real binary sampling a fixture /proc into a recording, read back by
// `cann-debug stats`; Ctrl-C and SIGTERM close the file cleanly within a second; after kill -9 the file
// reads up to its last complete chunk.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using cann_debug::testing::CliTest;
using nlohmann::json;

namespace {

const std::string kProcRoot = std::string(CANN_DEBUG_SOURCE_DIR) + "/tests/data/procfs/t0";

// The promise is a second. Under AddressSanitizer (a Debug build whose exit also runs the leak check) the
// same path is several times slower, so that build only checks it stays within a few seconds.
#if defined(CANN_DEBUG_ASAN)
constexpr double kCloseLimitSeconds = 5.0;
#else
constexpr double kCloseLimitSeconds = 1.0;
#endif

class CollectCli : public CliTest {
 protected:
  CollectCli() : CliTest("collect") {}

  std::vector<std::string> collect_args(std::vector<std::string> extra) {
    std::vector<std::string> args = {"collect",
                                     "--sources",
                                     "procfs",
                                     "--set",
                                     "procfs.root=" + kProcRoot,
                                     "--interval",
                                     "10ms",
                                     "--output",
                                     (scratch_ / "run.cdr").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }

  /// `cann-debug stats --json` of the recording: the first file's entry.
  json stats_of(const fs::path& recording) {
    cann_debug::testing::ChildProcess child(
        {cann_debug::testing::kCannDebugBinary, "stats", "--json", recording.string()}, scratch_ / "stats");
    EXPECT_EQ(child.wait(), 0) << child.err();
    auto j = json::parse(child.out());
    return j.at("inputs").at(0).at("files").at(0);
  }

  /// Waits until the recording has at least `bytes` bytes (the collector is running and has flushed).
  bool wait_for_size(std::uintmax_t bytes, std::chrono::seconds limit = std::chrono::seconds(20)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      std::error_code ec;
      if (fs::file_size(scratch_ / "run.cdr", ec) >= bytes && !ec) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  /// Sends `sig` to a running collector and returns how long it took to exit, and its exit code.
  std::pair<double, int> stop_with(int sig) {
    auto& child = start(collect_args({"--set", "recording_writer/out.flush_interval=200ms"}));
    EXPECT_TRUE(wait_for_size(200)) << child.err();
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    const auto t0 = std::chrono::steady_clock::now();
    child.signal(sig);
    const int rc = child.wait(std::chrono::seconds(10));
    return {std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), rc};
  }
};

TEST_F(CollectCli, RecordsAFixtureProcTreeAndStatsReadsItBack) {
  fs::create_directories(scratch_ / "stats");
  ASSERT_EQ(run(collect_args({"--duration", "2s"})), 0) << child_->err();
  EXPECT_NE(child_->out().find("bytes/sample"), std::string::npos) << child_->out();
  const json f = stats_of(scratch_ / "run.cdr");
  EXPECT_EQ(f.at("reader"), "recording");
  const json& r = f.at("recording");
  EXPECT_TRUE(r.at("closed_cleanly").get<bool>());
  EXPECT_EQ(r.at("meta").at("sources"), json::array({"procfs"}));
  EXPECT_EQ(r.at("meta").at("interval_ns"), 10'000'000);
  // 2 s at 10 ms: about 200 samples of each memory series (generous bounds for a loaded machine).
  const auto total = f.at("metrics").at("series").at("host.memory.total").at("points").get<int>();
  EXPECT_GT(total, 50);
  EXPECT_LE(total, 210);
  EXPECT_EQ(f.at("metrics").at("series").at("host.memory.total").at("unit"), "bytes");
  EXPECT_DOUBLE_EQ(r.at("retained_share").get<double>(), 1.0);
}

TEST_F(CollectCli, CtrlCClosesTheFileCleanlyWithinASecond) {
  fs::create_directories(scratch_ / "stats");
  const auto [seconds, rc] = stop_with(SIGINT);
  EXPECT_EQ(rc, 130) << child_->err();
  EXPECT_LT(seconds, kCloseLimitSeconds);
  const json f = stats_of(scratch_ / "run.cdr");
  EXPECT_TRUE(f.at("recording").at("closed_cleanly").get<bool>());
  EXPECT_GT(f.at("metrics").at("count").get<int>(), 0);
}

TEST_F(CollectCli, SigtermClosesTheFileCleanlyWithinASecond) {
  fs::create_directories(scratch_ / "stats");
  const auto [seconds, rc] = stop_with(SIGTERM);
  EXPECT_EQ(rc, 130) << child_->err();
  EXPECT_LT(seconds, kCloseLimitSeconds);
  EXPECT_TRUE(stats_of(scratch_ / "run.cdr").at("recording").at("closed_cleanly").get<bool>());
}

TEST_F(CollectCli, AfterKillNineTheFileReadsUpToItsLastCompleteChunk) {
  fs::create_directories(scratch_ / "stats");
  auto& child = start(collect_args({"--set", "recording_writer/out.flush_interval=200ms"}));
  ASSERT_TRUE(wait_for_size(200)) << child.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(1000));
  child.signal(SIGKILL);
  EXPECT_EQ(child.wait(), 128 + SIGKILL);
  const json f = stats_of(scratch_ / "run.cdr");
  EXPECT_EQ(f.at("status"), "ok");
  const json& r = f.at("recording");
  EXPECT_FALSE(r.at("closed_cleanly").get<bool>());
  EXPECT_NE(r.at("recovery_note").get<std::string>().find("not closed cleanly"), std::string::npos);
  EXPECT_GT(r.at("chunks").get<int>(), 1);
  EXPECT_GT(f.at("metrics").at("count").get<int>(), 100);
}

TEST_F(CollectCli, AnUnknownSourceIsRefusedListingTheSamplers) {
  EXPECT_EQ(run({"collect", "--sources", "procfs,nosuch", "--output", (scratch_ / "x.cdr").string()}), 3);
  EXPECT_NE(child_->err().find("'nosuch' is not a sampler"), std::string::npos) << child_->err();
  EXPECT_NE(child_->err().find("procfs"), std::string::npos) << child_->err();
  EXPECT_FALSE(fs::exists(scratch_ / "x.cdr"));
}

TEST_F(CollectCli, CorrelationPutsEverySampleOnTheIntervalGrid) {
  fs::create_directories(scratch_ / "stats");
  ASSERT_EQ(run(collect_args({"--duration", "1s", "--correlation"})), 0) << child_->err();
  const json f = stats_of(scratch_ / "run.cdr");
  const auto& meta = f.at("recording").at("meta");
  EXPECT_TRUE(meta.at("correlation").get<bool>());
  const auto first = f.at("recording").at("first_ns").get<std::int64_t>();
  const auto created = meta.at("created_ns").get<std::int64_t>();
  EXPECT_EQ((first - created) % 10'000'000, 0) << "sample times sit on the 10 ms grid";
}

}  // namespace
