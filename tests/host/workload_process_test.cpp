// The pieces `collect -- COMMAND` runs a workload with: the child process (PATH lookup, its own process
// group, exit codes in the shell's convention, start errors), the capture of an output stream (teed to a
// file, head and tail kept past a size limit, lines counted) and the time a log line says it was written.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "child_process.hpp"
#include "stream_capture.hpp"

namespace fs = std::filesystem;

namespace cann_debug::cli {
namespace {

constexpr std::int64_t kSecond = 1'000'000'000;

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

/// Reaps the child, waiting at most `limit`.
bool wait_for_exit(ChildProcess& child, std::chrono::seconds limit = std::chrono::seconds(20)) {
  const auto until = std::chrono::steady_clock::now() + limit;
  while (!child.try_wait()) {
    if (std::chrono::steady_clock::now() > until) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class WorkloadProcess : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("cann_debug_workload_process_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST(LineTime, JsonTimesAreTakenInAnyUnitSinceTheEpoch) {
  EXPECT_EQ(line_time_ns(R"({"step": 3, "loss": 1.5, "time": 1700000000.5})"),
            1700000000 * kSecond + kSecond / 2);
  EXPECT_EQ(line_time_ns(R"({"timestamp": 1700000000250})"), 1700000000 * kSecond + 250'000'000);  // ms
  EXPECT_EQ(line_time_ns(R"({"ts": 1700000000000000})"), 1700000000 * kSecond);                    // µs
  EXPECT_EQ(line_time_ns(R"(  {"wall_time": 1700000000000000000})"), 1700000000 * kSecond);        // ns
  EXPECT_EQ(line_time_ns(R"({"step": 3, "loss": 1.5})"), 0) << "no time field";
  EXPECT_EQ(line_time_ns(R"({"time": "yesterday"})"), 0) << "not a number";
  EXPECT_EQ(line_time_ns(R"({"time": 17)"), 0) << "not JSON";
}

TEST(LineTime, ALeadingDateIsLocalUnlessItSaysZ) {
  EXPECT_EQ(line_time_ns("2023-11-14T22:13:20Z iteration 10/100"), 1700000000 * kSecond);
  EXPECT_EQ(line_time_ns("[2023-11-14 22:13:20.250Z] loss 1.0"), 1700000000 * kSecond + 250'000'000);
  // Python's logging: "2023-11-14 22:13:20,125 INFO ...", in the machine's time zone.
  std::tm tm{};
  tm.tm_year = 123;
  tm.tm_mon = 10;
  tm.tm_mday = 14;
  tm.tm_hour = 22;
  tm.tm_min = 13;
  tm.tm_sec = 20;
  tm.tm_isdst = -1;
  const std::int64_t local = static_cast<std::int64_t>(std::mktime(&tm)) * kSecond;
  EXPECT_EQ(line_time_ns("2023-11-14 22:13:20,125 INFO step 3"), local + 125'000'000);
  EXPECT_EQ(line_time_ns("iteration 10/100 at 2023-11-14 22:13:20"), 0) << "only a leading date";
  EXPECT_EQ(line_time_ns("2023-13-14 22:13:20 month 13"), 0);
  EXPECT_EQ(line_time_ns(""), 0);
}

TEST_F(WorkloadProcess, TheChildsExitStatusAndItsKillingSignalFollowTheShellConvention) {
  ChildProcess exits({{"/bin/sh", "-c", "exit 4"}, {}});
  ASSERT_TRUE(wait_for_exit(exits));
  EXPECT_EQ(exits.exit_code(), 4);
  EXPECT_EQ(exits.how_it_ended(), "exited with status 4");

  ChildProcess killed({{"sleep", "30"}, {}});  // found in PATH
  killed.signal_group(SIGTERM);
  ASSERT_TRUE(wait_for_exit(killed));
  EXPECT_EQ(killed.exit_code(), 128 + SIGTERM);
  EXPECT_EQ(killed.how_it_ended(), "killed by SIGTERM");
}

TEST_F(WorkloadProcess, TheEnvironmentGetsTheAdditionsAndTheOutputComesThroughThePipes) {
  ChildProcess child({{"/bin/sh", "-c", "echo \"$RUN_DIR_FOR_TEST\"; echo oops >&2"},
                      {{"RUN_DIR_FOR_TEST", dir_.string()}}});
  StreamCapture out(child.stdout_fd(), {"stdout", (dir_ / "stdout.log").string(), -1, 0});
  StreamCapture err(child.stderr_fd(), {"stderr", (dir_ / "stderr.log").string(), -1, 0});
  ASSERT_TRUE(wait_for_exit(child));
  EXPECT_EQ(out.finish(5000).lines, 1u);
  EXPECT_TRUE(err.finish(5000).eof);
  EXPECT_EQ(slurp(dir_ / "stdout.log"), dir_.string() + "\n");
  EXPECT_EQ(slurp(dir_ / "stderr.log"), "oops\n");
}

TEST_F(WorkloadProcess, SignallingTheGroupReachesTheChildsOwnChildren) {
  // The shell starts a sleeper in the background and waits: SIGKILL to the group ends both, so the pipe
  // the sleeper inherited closes too.
  ChildProcess child({{"/bin/sh", "-c", "sleep 30 & wait"}, {}});
  StreamCapture out(child.stdout_fd(), {"stdout", (dir_ / "stdout.log").string(), -1, 0});
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  child.signal_group(SIGKILL);
  ASSERT_TRUE(wait_for_exit(child));
  EXPECT_TRUE(out.finish(5000).eof) << "the grandchild still held the pipe: it was not in the group";
}

TEST_F(WorkloadProcess, ACommandThatIsNotFoundIsAStartErrorNamingIt) {
  try {
    ChildProcess child({{"no-such-program-for-the-test"}, {}});
    FAIL() << "started";
  } catch (const StartError& e) {
    EXPECT_EQ(e.error, ENOENT);
    EXPECT_NE(std::string(e.what()).find("no-such-program-for-the-test"), std::string::npos) << e.what();
  }
  const fs::path not_executable = dir_ / "script.sh";
  std::ofstream(not_executable) << "echo hi\n";
  try {
    ChildProcess child({{not_executable.string()}, {}});
    FAIL() << "started";
  } catch (const StartError& e) {
    EXPECT_EQ(e.error, EACCES) << e.what();
  }
}

TEST_F(WorkloadProcess, AStreamOverTheLimitKeepsItsHeadAndTailAndSaysWhatWasLeftOut) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  StreamCapture capture(fds[0], {"stdout", (dir_ / "stdout.log").string(), -1, 1000});
  std::string all;
  for (int i = 0; i < 500; ++i) all += "line " + std::to_string(i) + "\n";
  ASSERT_EQ(::write(fds[1], all.data(), all.size()), static_cast<ssize_t>(all.size()));
  ::close(fds[1]);
  const auto& totals = capture.finish(5000);
  EXPECT_TRUE(totals.eof);
  EXPECT_EQ(totals.bytes, all.size());
  EXPECT_EQ(totals.lines, 500u);
  const std::string file = slurp(dir_ / "stdout.log");
  EXPECT_EQ(file.rfind("line 0\nline 1\n", 0), 0u) << "the head";
  EXPECT_EQ(file.substr(file.size() - 18), "line 498\nline 499\n") << "the tail";
  EXPECT_NE(file.find("left out"), std::string::npos);
  EXPECT_LE(file.size(), 1000u + 120u) << "the limit and one marker line";
  // Every byte is either in the file (lines cut whole) or counted as left out.
  const auto marker_start = file.find("[cann-debug collect:");
  ASSERT_NE(marker_start, std::string::npos);
  const auto marker_size = file.find('\n', marker_start) + 1 - marker_start;
  EXPECT_EQ(totals.bytes_left_out + file.size() - marker_size, all.size()) << file;
  EXPECT_GT(totals.bytes_left_out, all.size() - 1000);
}

TEST_F(WorkloadProcess, LinesWithTheirOwnTimeMeasureTheClockOffset) {
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  StreamCapture capture(fds[0], {"stdout", (dir_ / "stdout.log").string(), -1, 0});
  // A writer whose clock runs 5 s behind collect's: every line arrives "5 s after" it was written.
  for (int i = 0; i < 5; ++i) {
    const double behind =
        std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count() - 5.0;
    const std::string line =
        "{\"step\": " + std::to_string(i) + ", \"loss\": 1.0, \"time\": " + std::to_string(behind) + "}\n";
    ASSERT_EQ(::write(fds[1], line.data(), line.size()), static_cast<ssize_t>(line.size()));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ::close(fds[1]);
  const auto& totals = capture.finish(5000);
  ASSERT_EQ(totals.stamped_lines, 5u);
  for (double lag : totals.lags_s) EXPECT_NEAR(lag, 5.0, 0.5);
}

}  // namespace
}  // namespace cann_debug::cli
