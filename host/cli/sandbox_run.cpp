#include "sandbox_run.hpp"

#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "stream_capture.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

/// Whether a process of group `pgid` is still running. Zombies do not count (whoever adopted them reaps
/// them); without /proc, whether the group can be signalled at all.
bool group_alive(pid_t pgid) {
  if (pgid <= 0) return false;
  std::error_code ec;
  fs::directory_iterator it("/proc", ec);
  if (ec) return ::kill(-pgid, 0) == 0;
  for (const auto& entry : it) {
    const std::string name = entry.path().filename().string();
    if (name.empty() || name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::ifstream stat(entry.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    // pid (comm) state ppid pgrp ...; comm may hold spaces and parentheses.
    const auto paren = line.rfind(')');
    if (paren == std::string::npos) continue;
    std::istringstream rest(line.substr(paren + 1));
    char state = 0;
    long ppid = 0, pgrp = 0;
    if (!(rest >> state >> ppid >> pgrp)) continue;
    if (pgrp == pgid && state != 'Z' && state != 'X') return true;
  }
  return false;
}

std::string file_tail(const std::string& path, std::size_t bytes) {
  std::ifstream in(path, std::ios::binary | std::ios::ate);
  if (!in) return {};
  const auto size = static_cast<std::size_t>(in.tellg());
  const std::size_t from = size > bytes ? size - bytes : 0;
  in.seekg(static_cast<std::streamoff>(from));
  std::string text(size - from, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (from > 0) {
    const auto nl = text.find('\n');
    if (nl != std::string::npos) text.erase(0, nl + 1);
  }
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r')) text.pop_back();
  return text;
}

}  // namespace

std::string SandboxResult::describe() const {
  if (!started) return fmt::format("did not start: {}", ended);
  std::string out =
      timed_out ? fmt::format("timed out after {:.0f} s (its process group was killed)", elapsed_s) : ended;
  if (exit_code == 128 + SIGXCPU) out += " (CPU time limit)";
  if (exit_code == 128 + SIGXFSZ) out += " (file size limit)";
  if (left_processes) out += "; it left processes running, which were killed";
  return out;
}

SandboxResult run_in_sandbox(const SandboxSpec& spec, const std::function<bool()>& stop) {
  SandboxResult result;
  std::error_code ec;
  fs::create_directories(spec.dir, ec);
  if (ec) {
    result.ended = fmt::format("cannot create {}: {}", spec.dir, ec.message());
    return result;
  }
  result.stdout_log = (fs::path(spec.dir) / "stdout.log").string();
  result.stderr_log = (fs::path(spec.dir) / "stderr.log").string();
  ChildSpec child_spec{spec.argv, spec.env, spec.dir, spec.limits};
  const auto start = Clock::now();
  std::unique_ptr<ChildProcess> child;
  try {
    child = std::make_unique<ChildProcess>(child_spec);
  } catch (const StartError& e) {
    result.ended = e.what();
    return result;
  }
  result.started = true;
  const pid_t pgid = child->pid();
  StreamCapture out(child->stdout_fd(), CaptureOptions{"stdout", result.stdout_log, -1, spec.max_log_bytes});
  StreamCapture err(child->stderr_fd(), CaptureOptions{"stderr", result.stderr_log, -1, spec.max_log_bytes});

  const auto deadline =
      start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(spec.timeout_s));
  std::optional<Clock::time_point> kill_at;
  while (!child->try_wait()) {
    const auto now = Clock::now();
    if (!kill_at && (now >= deadline || (stop && stop()))) {
      result.timed_out = now >= deadline;
      child->signal_group(SIGTERM);
      kill_at = now + std::chrono::milliseconds(kTermGraceMs);
    } else if (kill_at && now >= *kill_at) {
      child->signal_group(SIGKILL);
      kill_at = now + std::chrono::hours(24);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  result.elapsed_s = std::chrono::duration<double>(Clock::now() - start).count();
  result.exit_code = child->exit_code().value_or(-1);
  result.ended = child->how_it_ended();
  // What the workload left behind in its group: helpers that end on their own once it exits (Python's
  // multiprocessing resource tracker, ranks finishing their teardown) get kLeftoverGraceMs; what is still
  // there then (a background child) is killed, and the pipes close.
  const auto leftover_deadline = Clock::now() + std::chrono::milliseconds(kLeftoverGraceMs);
  while (group_alive(pgid) && Clock::now() < leftover_deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  if (group_alive(pgid)) {
    result.left_processes = true;
    ::kill(-pgid, SIGKILL);
  }
  result.stdout_bytes = out.finish(1000).bytes;
  result.stderr_bytes = err.finish(1000).bytes;
  result.stderr_tail = file_tail(result.stderr_log, 2048);
  return result;
}

}  // namespace cann_debug::cli
