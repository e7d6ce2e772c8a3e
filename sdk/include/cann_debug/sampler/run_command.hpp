// Running a vendor tool (npu-smi, hccn_tool) as a fallback when its library is absent: no shell, stdin
// from /dev/null, stdout captured, stderr discarded, and a deadline after which the tool is killed, so a
// hung tool costs one sample, not the run.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace cann_debug::plugins::sampler_support {

struct CommandResult {
  bool started = false;    // false: the program could not be run (see error)
  bool timed_out = false;  // killed at the deadline (output holds what came before)
  int exit_code = -1;      // exit status, or -1 when it did not exit normally
  std::string output;      // stdout, at most max_output bytes
  std::string error;       // why it did not start / did not finish, "" when it exited normally

  bool ok() const { return started && !timed_out && exit_code == 0; }
};

/// Runs argv[0] (looked up in PATH when it holds no '/') with the arguments argv[1..] and waits at most
/// `timeout` for it to finish. Never throws for a failure of the program itself.
CommandResult run_command(const std::vector<std::string>& argv, std::chrono::milliseconds timeout,
                          std::size_t max_output = std::size_t{4} << 20);

/// The path an executable would be run from: `name` itself when it holds a '/' (if executable), else the
/// first executable `name` in $PATH. nullopt when there is none.
std::optional<std::string> find_executable(const std::string& name);

}  // namespace cann_debug::plugins::sampler_support
