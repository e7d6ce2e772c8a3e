// `cann-debug collect ... --output RUN_DIR -- COMMAND` and `--pid PID` end to end: the real binary runs a
// workload (a shell script, no Python needed) beside the procfs sampler on a fixture /proc, and the run
// folder holds its recording, its output, the files it wrote and fusion.json. Covered: the child's exit code,
// its output teed to the terminal and to stdout.log / stderr.log, the run folder in $CANN_DEBUG_RUN_DIR,
// a command that cannot start, one that exits at once, one that floods its output, Ctrl-C forwarded (and
// escalated) while everything recorded is kept, --pid, --logs and --traces, and metrics the workload only
// prints read back by the log readers.
#include <gtest/gtest.h>

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using cann_debug::testing::ChildProcess;
using cann_debug::testing::CliTest;
using nlohmann::json;

namespace {

const std::string kProcRoot = std::string(CANN_DEBUG_SOURCE_DIR) + "/tests/data/procfs/t0";

class CollectWorkload : public CliTest {
 protected:
  CollectWorkload() : CliTest("collect_workload") {}

  fs::path run_dir() const { return scratch_ / "run"; }

  /// collect of the fixture /proc every 20 ms into run/, then `extra` (options, then -- and the command).
  std::vector<std::string> collect_args(std::vector<std::string> extra) {
    std::vector<std::string> args = {
        "collect",    "--sources", "procfs",   "--set",           "procfs.root=" + kProcRoot,
        "--interval", "20ms",      "--output", run_dir().string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  std::vector<std::string> with_script(const std::string& script, std::vector<std::string> options = {}) {
    options.insert(options.end(), {"--", "/bin/sh", "-c", script});
    return collect_args(std::move(options));
  }

  json fusion() const {
    std::ifstream in(run_dir() / "fusion.json");
    EXPECT_TRUE(in.good()) << "no fusion.json in " << run_dir();
    return json::parse(in);
  }
  static std::string slurp(const fs::path& p) { return ChildProcess::slurp(p); }

  const json* source(const json& f, const std::string& path) const {
    for (const auto& s : f.at("sources"))
      if (s.at("path") == path) return &s;
    return nullptr;
  }

  /// `cann-debug stats --json` of the run's recording: the file's entry.
  json recording_stats() {
    ChildProcess child(
        {cann_debug::testing::kCannDebugBinary, "stats", "--json", (run_dir() / "recording.cdr").string()},
        scratch_ / "stats");
    EXPECT_EQ(child.wait(), 0) << child.err();
    return json::parse(child.out()).at("inputs").at(0).at("files").at(0);
  }

  bool wait_for_text(const fs::path& file, const std::string& text,
                     std::chrono::seconds limit = std::chrono::seconds(20)) {
    const auto until = std::chrono::steady_clock::now() + limit;
    while (std::chrono::steady_clock::now() < until) {
      if (slurp(file).find(text) != std::string::npos) return true;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return false;
  }

  void SetUp() override {
    CliTest::SetUp();
    fs::create_directories(scratch_ / "stats");
  }
};

TEST_F(CollectWorkload, ExitsWithTheChildsCodeAndKeepsItsOutputBesideTheRecording) {
  const int rc = run(with_script(
      "echo first line; echo a warning >&2; echo \"$CANN_DEBUG_RUN_DIR\" > \"$CANN_DEBUG_RUN_DIR/seen.txt\"; "
      "sleep 0.3; echo last line; exit 3"));
  ASSERT_EQ(rc, 3) << child_->err();
  // Teed: the terminal (here the test's capture of collect's stdout) and the run folder both have it.
  EXPECT_NE(child_->out().find("first line\nlast line\n"), std::string::npos) << child_->out();
  EXPECT_EQ(slurp(run_dir() / "stdout.log"), "first line\nlast line\n");
  EXPECT_EQ(slurp(run_dir() / "stderr.log"), "a warning\n");
  EXPECT_EQ(slurp(run_dir() / "seen.txt"), run_dir().string() + "\n");
  EXPECT_NE(child_->err().find("exited with status 3"), std::string::npos) << child_->err();

  const auto f = fusion();
  EXPECT_EQ(f.at("workload").at("exit_code"), 3);
  EXPECT_EQ(f.at("workload").at("command").at(0), "/bin/sh");
  EXPECT_FALSE(f.at("workload").at("interrupted").get<bool>());
  EXPECT_GE(f.at("workload").at("seconds").get<double>(), 0.3);
  EXPECT_EQ(f.at("streams").at("stdout").at("lines"), 2);
  EXPECT_EQ(f.at("streams").at("stderr").at("bytes"), 10);
  const json* rec = source(f, "recording.cdr");
  ASSERT_NE(rec, nullptr) << f.dump(2);
  EXPECT_EQ(rec->at("kind"), "hardware");
  EXPECT_GT(rec->at("samples").get<int>(), 0);
  EXPECT_EQ(rec->at("outside_run_s").get<double>(), 0.0) << "the samplers ran only while the workload did";
  EXPECT_GT(f.at("stored_bytes").get<int>(), 0);
  // The recording is a complete file that stats reads back.
  EXPECT_EQ(recording_stats().at("status"), "ok");
}

TEST_F(CollectWorkload, ACommandThatCannotStartIsNamedAndLeavesAReadableRunFolder) {
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(run(collect_args({"--", "no-such-program-anywhere", "--flag"})), 127);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
  EXPECT_NE(child_->err().find("no-such-program-anywhere"), std::string::npos) << child_->err();
  const auto f = fusion();
  EXPECT_NE(f.at("workload").at("start_error").get<std::string>().find("no-such-program-anywhere"),
            std::string::npos);
  EXPECT_FALSE(f.at("workload").contains("exit_code"));
}

TEST_F(CollectWorkload, AChildThatExitsAtOnceStillGivesACompleteRecording) {
  ASSERT_EQ(run(collect_args({"--", "/bin/true"})), 0) << child_->err();
  const auto f = fusion();
  EXPECT_EQ(f.at("workload").at("exit_code"), 0);
  EXPECT_EQ(f.at("streams").at("stdout").at("bytes"), 0);
  EXPECT_EQ(recording_stats().at("status"), "ok");
}

TEST_F(CollectWorkload, AFloodOfOutputKeepsTheHeadAndTailWithinTheLimit) {
  // 100 MB of lines (the figure) through the pipe; each log file keeps at most 1 MiB of it.
  const std::uint64_t total = 100'000'000;
  ASSERT_EQ(
      run(with_script("echo first; yes 'a line of output from a workload that talks too much' | head -c " +
                          std::to_string(total - 6) + "; echo; echo final",
                      {"--max-log-size", "1MiB"}),
          std::chrono::seconds(240)),
      0)
      << child_->err();
  const auto log = run_dir() / "stdout.log";
  EXPECT_LE(fs::file_size(log), 1024u * 1024u + 200u);
  const std::string text = slurp(log);
  EXPECT_EQ(text.rfind("first\n", 0), 0u) << "the head is kept";
  EXPECT_EQ(text.substr(text.size() - 6), "final\n") << "the tail is kept";
  EXPECT_NE(text.find("left out"), std::string::npos) << "a line says where the middle went";
  const auto s = fusion().at("streams").at("stdout");
  EXPECT_EQ(s.at("bytes").get<std::uint64_t>(), total + 7);  // first, the flood, a newline, final
  EXPECT_GT(s.at("bytes_left_out").get<std::uint64_t>(), total - 2 * 1024 * 1024);
  // The terminal gets every byte.
  EXPECT_EQ(fs::file_size(scratch_ / "stdout.txt"), total + 7);
}

TEST_F(CollectWorkload, CtrlCIsForwardedAndEverythingRecordedIsKept) {
  auto& child =
      start(with_script("trap 'echo stopping on SIGINT; exit 130' INT; echo running; "
                        "while :; do sleep 0.05; done"));
  ASSERT_TRUE(wait_for_text(run_dir() / "stdout.log", "running\n")) << child.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  child.signal(SIGINT);
  ASSERT_EQ(child.wait(std::chrono::seconds(20)), 130) << child.err();
  EXPECT_EQ(slurp(run_dir() / "stdout.log"), "running\nstopping on SIGINT\n");
  const auto f = fusion();
  EXPECT_TRUE(f.at("workload").at("interrupted").get<bool>());
  EXPECT_EQ(f.at("workload").at("signals_forwarded"), 1);
  EXPECT_GT(recording_stats().at("recording").at("samples_total").get<int>(), 0);
}

TEST_F(CollectWorkload, ASecondCtrlCEscalatesToSigterm) {
  auto& child = start(with_script("trap '' INT; echo ignoring; while :; do sleep 0.05; done"));
  ASSERT_TRUE(wait_for_text(run_dir() / "stdout.log", "ignoring\n")) << child.err();
  child.signal(SIGINT);
  ASSERT_TRUE(wait_for_text(scratch_ / "stderr.txt", "sent SIGINT")) << child.err();
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  child.signal(SIGINT);
  EXPECT_EQ(child.wait(std::chrono::seconds(20)), 128 + SIGTERM) << child.err();
  const auto f = fusion();
  EXPECT_EQ(f.at("workload").at("signals_forwarded"), 2);
  EXPECT_EQ(f.at("workload").at("ended"), "killed by SIGTERM") << f.at("workload").dump();
}

TEST_F(CollectWorkload, PidAttachesToARunningProcessUntilItExits) {
  // Not collect's child: the test starts it, and reaps it from a thread so that it does not stay a zombie.
  ChildProcess sleeper({"/bin/sleep", "1"}, scratch_ / "stats");
  ASSERT_TRUE(sleeper.started());
  std::thread reaper([&] { sleeper.wait(); });
  const auto t0 = std::chrono::steady_clock::now();
  const int rc = run(collect_args({"--pid", std::to_string(sleeper.pid())}));
  reaper.join();
  ASSERT_EQ(rc, 0) << child_->err();
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 15.0);
  const auto f = fusion();
  EXPECT_TRUE(f.at("workload").at("attached").get<bool>());
  EXPECT_EQ(f.at("workload").at("pid"), sleeper.pid());
  EXPECT_GT(recording_stats().at("recording").at("samples_total").get<int>(), 0);
}

TEST_F(CollectWorkload, APidThatDoesNotRunIsRefused) {
  EXPECT_NE(run(collect_args({"--pid", "999999999"})), 0);
  EXPECT_NE(child_->err().find("no such process"), std::string::npos) << child_->err();
}

TEST_F(CollectWorkload, LogsAndTracesWrittenElsewhereAreCopiedIntoTheRunFolder) {
  const fs::path elsewhere = scratch_ / "elsewhere";
  fs::create_directories(elsewhere / "prof");
  const int rc = run(with_script(
      "echo one > " + (elsewhere / "a.log").string() + "; echo two > " + (elsewhere / "b.log").string() +
          "; echo '{\"traceEvents\": []}' > " + (elsewhere / "prof" / "t.json").string(),
      {"--logs", (elsewhere / "*.log").string(), "--traces", (elsewhere / "prof").string()}));
  ASSERT_EQ(rc, 0) << child_->err();
  EXPECT_EQ(slurp(run_dir() / "logs" / "a.log"), "one\n");
  EXPECT_EQ(slurp(run_dir() / "logs" / "b.log"), "two\n");
  EXPECT_TRUE(fs::exists(run_dir() / "traces" / "prof" / "t.json"));
  const auto copied = fusion().at("copied");
  EXPECT_EQ(copied.size(), 3u) << copied.dump();
}

TEST_F(CollectWorkload, MetricsTheWorkloadOnlyPrintsAreReadByTheLogReaders) {
  // A training loop that logs nothing but JSON lines on stdout, with its own timestamps.
  std::string script =
      "i=0; while [ $i -lt 8 ]; do "
      "printf '{\"step\": %d, \"loss\": 2.%d, \"time\": %s}\\n' $i $((9 - i)) $(date +%s.%N); "
      "i=$((i + 1)); sleep 0.05; done";
  ASSERT_EQ(run(with_script(script)), 0) << child_->err();
  const auto f = fusion();
  const json* out = source(f, "stdout.log");
  ASSERT_NE(out, nullptr) << f.dump(2);
  EXPECT_EQ(out->at("reader"), "train_log");
  EXPECT_EQ(out->at("steps"), 8);
  // The lines carry their own time: their arrival measures the two clocks' offset (here one clock).
  const auto& offset = f.at("streams").at("stdout").at("clock_offset");
  EXPECT_EQ(offset.at("lines_compared"), 8);
  EXPECT_LT(offset.at("max_abs_s").get<double>(), 1.0);
  EXPECT_LT(out->at("outside_run_s").get<double>(), 1.0);
}

TEST_F(CollectWorkload, ASetJustBeforeTheSeparatorLeavesTheCommandItsOwnFlags) {
  // `--set X -- prog --flag --set y`: one value per --set, everything after -- is the workload's argv.
  ASSERT_EQ(
      run(collect_args({"--set", "procfs.per_cpu=true", "--", "/bin/echo", "--fault", "x", "--set", "y=1"})),
      0)
      << child_->err();
  EXPECT_EQ(slurp(run_dir() / "stdout.log"), "--fault x --set y=1\n");
}

TEST_F(CollectWorkload, ProcfsFollowsTheWorkloadProcess) {
  // The real /proc (the fixture has no such pid): the child's CPU, memory and threads are in the recording.
  std::vector<std::string> args = {"collect", "--sources", "procfs",           "--interval",
                                   "20ms",    "--output",  run_dir().string(), "--",
                                   "/bin/sh", "-c",        "sleep 0.4"};
  ASSERT_EQ(run(args), 0) << child_->err();
  ChildProcess stats(
      {cann_debug::testing::kCannDebugBinary, "stats", "--json", (run_dir() / "recording.cdr").string()},
      scratch_ / "stats");
  ASSERT_EQ(stats.wait(), 0) << stats.err();
  EXPECT_NE(stats.out().find("process.cpu.utilization"), std::string::npos) << stats.out().substr(0, 2000);
  EXPECT_NE(stats.out().find("host.cpu.count"), std::string::npos);
}

TEST_F(CollectWorkload, AWorkloadAndPidTogetherAreAUsageError) {
  EXPECT_EQ(run(collect_args({"--pid", "1", "--", "/bin/true"})), 2);
  EXPECT_NE(child_->err().find("not both"), std::string::npos) << child_->err();
}

}  // namespace
