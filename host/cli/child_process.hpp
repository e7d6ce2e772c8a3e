// A workload started without a shell in its own process group, stdin from /dev/null, stdout and stderr on
// pipes, extra variables (CANN_DEBUG_RUN_DIR) in its environment; for `optimize`'s sandbox also in a
// working directory of its own and under resource limits (setrlimit in the child before exec).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace cann_debug::cli {

/// setrlimit(2) limits for the child and everything it starts; 0 = inherited.
struct ResourceLimits {
  std::uint64_t cpu_seconds = 0;          // RLIMIT_CPU: SIGXCPU, then SIGKILL
  std::uint64_t address_space_bytes = 0;  // RLIMIT_AS: allocations fail
  std::uint64_t file_size_bytes = 0;      // RLIMIT_FSIZE: SIGXFSZ on a larger write
  std::uint64_t open_files = 0;           // RLIMIT_NOFILE
  bool any() const { return cpu_seconds || address_space_bytes || file_size_bytes || open_files; }
};

struct ChildSpec {
  std::vector<std::string> argv;                         // argv[0] is looked up in PATH
  std::vector<std::pair<std::string, std::string>> env;  // added to (or replacing in) the environment
  std::string cwd;                                       // "" = this process's
  ResourceLimits limits;
};

/// Why a command could not be started; `error` is the errno (ENOENT: not found -> exit code 127).
struct StartError : std::runtime_error {
  StartError(const std::string& what, int error) : std::runtime_error(what), error(error) {}
  int error;
};

class ChildProcess {
 public:
  /// Starts it. Throws StartError "cannot start 'ARGV0': REASON" when it cannot be started (not found, not
  /// executable, no pipes or processes left).
  explicit ChildProcess(const ChildSpec& spec);
  ~ChildProcess();  // kills what is left of the group and reaps the child
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  pid_t pid() const { return pid_; }
  /// Read ends of the child's stdout and stderr; the caller reads them to EOF (closed by the destructor).
  int stdout_fd() const { return out_fd_; }
  int stderr_fd() const { return err_fd_; }
  /// Sends `sig` to the child's process group (its children too); no-op once the group is gone.
  void signal_group(int sig) const;
  /// Reaps the child if it has exited; true once it has (then exit_code() is set).
  bool try_wait();
  /// The shell's convention: the exit status, or 128 + the signal that killed it.
  std::optional<int> exit_code() const { return exit_code_; }
  /// "exited with status 0", "killed by SIGKILL" (empty while running).
  const std::string& how_it_ended() const { return ended_; }

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  int err_fd_ = -1;
  std::optional<int> exit_code_;
  std::string ended_;
};

}  // namespace cann_debug::cli
