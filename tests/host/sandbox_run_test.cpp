// `optimize`'s sandbox with real misbehaving programs: one that hangs with a child (both killed at the
// timeout), one that crashes, one that floods its output, one that leaves a background child, one that
// cannot start; arguments arrive literally; the working directory and resource limits are the run's own.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "sandbox_run.hpp"

namespace fs = std::filesystem;
using ::testing::HasSubstr;

namespace cann_debug::cli {
namespace {

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

bool alive(pid_t pid) {
  return ::kill(pid, 0) == 0;
}

class Sandbox : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("sandbox_run_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  SandboxSpec sh(const std::string& script, double timeout_s = 30) {
    SandboxSpec spec;
    spec.argv = {"/bin/sh", "-c", script};
    spec.dir = dir_.string();
    spec.timeout_s = timeout_s;
    return spec;
  }
  fs::path dir_;
};

TEST_F(Sandbox, RunsInItsOwnDirectoryAndKeepsItsOutput) {
  const auto r = run_in_sandbox(sh("pwd; echo to-stderr >&2; echo made > here.txt"));
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(slurp(dir_ / "stdout.log"), fs::canonical(dir_).string() + "\n");
  EXPECT_EQ(slurp(dir_ / "stderr.log"), "to-stderr\n");
  EXPECT_EQ(r.stderr_tail, "to-stderr");
  EXPECT_TRUE(fs::exists(dir_ / "here.txt"));
}

TEST_F(Sandbox, ShellMetacharactersReachTheProgramAsOneLiteralArgument) {
  const std::string evil = "0.1; touch pwned $(touch pwned2) `touch pwned3` | tee x > y && z";
  SandboxSpec spec;
  spec.argv = {"/usr/bin/printf", "[%s]\\n", evil};
  spec.dir = dir_.string();
  const auto r = run_in_sandbox(spec);
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_EQ(slurp(dir_ / "stdout.log"), "[" + evil + "]\n");
  for (const char* f : {"pwned", "pwned2", "pwned3", "x", "y"}) EXPECT_FALSE(fs::exists(dir_ / f)) << f;
}

TEST_F(Sandbox, AHangingWorkloadIsKilledWithItsChildrenAtTheTimeout) {
  // The script starts a child that ignores SIGTERM and writes its pid, then waits forever.
  const auto start = std::chrono::steady_clock::now();
  const auto r =
      run_in_sandbox(sh("sh -c 'trap \"\" TERM; echo $$ > child.pid; while :; do sleep 1; done' & "
                        "wait",
                        1.0));
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.describe(), HasSubstr("timed out after"));
  EXPECT_LT(took, 1.0 + kTermGraceMs / 1000.0 + 5.0);
  const pid_t child = std::stoi(slurp(dir_ / "child.pid"));
  // Give the kernel a moment to reap the orphan (init adopts it).
  for (int i = 0; i < 100 && alive(child); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(alive(child)) << "the workload's child survived the timeout";
}

TEST_F(Sandbox, ACrashIsReportedWithTheSignal) {
  const auto r = run_in_sandbox(sh("echo dying >&2; kill -SEGV $$"));
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.exit_code, 128 + SIGSEGV);
  EXPECT_THAT(r.describe(), HasSubstr("killed by SIGSEGV"));
  EXPECT_EQ(r.stderr_tail, "dying");
}

TEST_F(Sandbox, ABackgroundChildLeftBehindIsKilled) {
  const auto r = run_in_sandbox(sh("sleep 300 & echo $! > bg.pid; exit 0"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(r.left_processes);
  EXPECT_FALSE(r.ok());
  EXPECT_THAT(r.describe(), HasSubstr("left processes running"));
  EXPECT_LT(r.elapsed_s, 10.0);
  const pid_t bg = std::stoi(slurp(dir_ / "bg.pid"));
  for (int i = 0; i < 100 && alive(bg); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  EXPECT_FALSE(alive(bg));
}

TEST_F(Sandbox, AFloodOfOutputIsCappedInTheFile) {
  auto spec = sh("head -c 4000000 /dev/zero | tr '\\0' 'x' | fold -w 99");
  spec.max_log_bytes = 100000;
  const auto r = run_in_sandbox(spec);
  EXPECT_TRUE(r.ok()) << r.describe();
  EXPECT_GE(r.stdout_bytes, 4000000u);
  EXPECT_LT(fs::file_size(dir_ / "stdout.log"), 120000u);
}

TEST_F(Sandbox, ResourceLimitsApplyToTheWorkload) {
  auto spec = sh("ulimit -n; ulimit -f; ulimit -t");
  spec.limits.open_files = 64;
  spec.limits.file_size_bytes = 1024 * 1024;
  spec.limits.cpu_seconds = 77;
  const auto r = run_in_sandbox(spec);
  EXPECT_TRUE(r.ok()) << r.describe();
  // sh reports the file size in 512-byte blocks on dash ("ulimit -f"), or 1024 on bash.
  const std::string out = slurp(dir_ / "stdout.log");
  EXPECT_THAT(out, HasSubstr("64\n"));
  EXPECT_THAT(out, ::testing::AnyOf(HasSubstr("\n2048\n"), HasSubstr("\n1024\n")));
  EXPECT_THAT(out, HasSubstr("77"));
  // A larger write than RLIMIT_FSIZE is stopped by SIGXFSZ.
  auto big = sh("head -c 2000000 /dev/zero > big.bin");
  big.limits.file_size_bytes = 100000;
  const auto b = run_in_sandbox(big);
  EXPECT_FALSE(b.ok());
  EXPECT_LE(fs::file_size(dir_ / "big.bin"), 100000u);
}

TEST_F(Sandbox, AProgramThatCannotStartSaysWhy) {
  SandboxSpec spec;
  spec.argv = {"no-such-program-cann-debug"};
  spec.dir = dir_.string();
  spec.limits.open_files = 64;  // the fork path
  const auto r = run_in_sandbox(spec);
  EXPECT_FALSE(r.started);
  EXPECT_THAT(r.describe(), HasSubstr("did not start: cannot start 'no-such-program-cann-debug'"));
}

TEST_F(Sandbox, StopEndsTheRunEarly) {
  int polls = 0;
  const auto r = run_in_sandbox(sh("sleep 30"), [&] { return ++polls > 5; });
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.timed_out);
  EXPECT_LT(r.elapsed_s, 10.0);
}

}  // namespace
}  // namespace cann_debug::cli
