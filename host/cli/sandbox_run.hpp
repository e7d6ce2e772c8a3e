// One run of `cann-debug optimize`'s sandbox: the workload in a directory of its own, its own process group
// (killed with every process in it at the timeout, and whatever it left running once it exits), resource
// limits set with setrlimit before exec, stdout/stderr kept in files with a size cap.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "child_process.hpp"

namespace cann_debug::cli {

struct SandboxSpec {
  std::vector<std::string> argv;
  std::vector<std::pair<std::string, std::string>> env;  // added to the environment
  std::string dir;         // the run's own directory (created; the working directory; stdout.log, stderr.log)
  double timeout_s = 600;  // SIGTERM to the group at the timeout, SIGKILL kTermGraceMs later
  ResourceLimits limits;
  std::uint64_t max_log_bytes = 64ull << 20;  // per stream; the middle of a larger one is left out
};

struct SandboxResult {
  bool started = false;
  int exit_code = -1;  // the shell's convention (128 + signal); -1 when it did not start
  std::string ended;   // "exited with status 0", "killed by SIGKILL", or why it did not start
  bool timed_out = false;
  bool left_processes = false;  // processes of its group outlived it (killed)
  double elapsed_s = 0;
  std::uint64_t stdout_bytes = 0, stderr_bytes = 0;
  std::string stdout_log, stderr_log;
  /// The last lines of stderr (at most ~2 KiB), for a message.
  std::string stderr_tail;
  /// Exited 0 in time, leaving nothing running (a background child may still have been writing its output).
  bool ok() const { return started && exit_code == 0 && !timed_out && !left_processes; }
  /// "exited with status 3", "timed out after 5 s (killed with its children)", "did not start: ..."
  std::string describe() const;
};

inline constexpr int kTermGraceMs = 2000;
/// How long processes of the workload's group may outlive it before they are killed as left behind.
inline constexpr int kLeftoverGraceMs = 2000;

/// Runs it to its end. `stop` (polled every 20 ms) ends the run early like a timeout does, e.g. on Ctrl-C.
SandboxResult run_in_sandbox(const SandboxSpec& spec, const std::function<bool()>& stop = {});

}  // namespace cann_debug::cli
