#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

#include <fmt/format.h>

extern char** environ;

namespace cann_debug::cli {
namespace {

struct Pipe {
  int read = -1, write = -1;
  Pipe() {
    int fds[2];
    if (::pipe2(fds, O_CLOEXEC) != 0) return;
    read = fds[0];
    write = fds[1];
  }
  ~Pipe() {
    if (write >= 0) ::close(write);
  }
  int take_read() { return std::exchange(read, -1); }
};

std::vector<std::string> environment_with(const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> out;
  for (char** e = environ; e && *e; ++e) {
    const std::string_view entry(*e);
    bool replaced = false;
    for (const auto& [name, value] : extra)
      replaced =
          replaced || (entry.starts_with(name) && entry.size() > name.size() && entry[name.size()] == '=');
    if (!replaced) out.emplace_back(entry);
  }
  for (const auto& [name, value] : extra) out.push_back(name + "=" + value);
  return out;
}

std::vector<char*> pointers(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

ChildProcess::ChildProcess(const ChildSpec& spec) {
  if (spec.argv.empty() || spec.argv.front().empty()) throw StartError("cannot start '': no command", EINVAL);
  const std::string& name = spec.argv.front();
  Pipe out, err;
  if (out.read < 0 || err.read < 0)
    throw StartError(fmt::format("cannot start '{}': no pipe: {}", name, std::strerror(errno)), errno);

  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  ::posix_spawn_file_actions_init(&actions);
  ::posix_spawnattr_init(&attr);
  ::posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  ::posix_spawn_file_actions_adddup2(&actions, out.write, STDOUT_FILENO);
  ::posix_spawn_file_actions_adddup2(&actions, err.write, STDERR_FILENO);
  // Its own process group: the terminal's Ctrl-C reaches collect, which forwards it (and can still write
  // the run folder); default dispositions and an empty mask, whatever collect had set.
  sigset_t defaults, empty;
  sigemptyset(&defaults);
  for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT, SIGCHLD}) sigaddset(&defaults, sig);
  sigemptyset(&empty);
  ::posix_spawnattr_setsigdefault(&attr, &defaults);
  ::posix_spawnattr_setsigmask(&attr, &empty);
  ::posix_spawnattr_setpgroup(&attr, 0);
  ::posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);

  std::vector<std::string> args = spec.argv;
  std::vector<std::string> env = environment_with(spec.env);
  auto argv = pointers(args);
  auto envp = pointers(env);
  const int rc = ::posix_spawnp(&pid_, name.c_str(), &actions, &attr, argv.data(), envp.data());
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
  if (rc != 0) {
    pid_ = -1;
    throw StartError(fmt::format("cannot start '{}': {}", name, std::strerror(rc)), rc);
  }
  out_fd_ = out.take_read();
  err_fd_ = err.take_read();
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0 && !exit_code_) {
    signal_group(SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
  }
  for (int fd : {out_fd_, err_fd_})
    if (fd >= 0) ::close(fd);
}

void ChildProcess::signal_group(int sig) const {
  if (pid_ > 0) ::kill(-pid_, sig);
}

bool ChildProcess::try_wait() {
  if (exit_code_) return true;
  int status = 0;
  const pid_t r = ::waitpid(pid_, &status, WNOHANG);
  if (r != pid_) return false;
  if (WIFEXITED(status)) {
    exit_code_ = WEXITSTATUS(status);
    ended_ = fmt::format("exited with status {}", *exit_code_);
  } else if (WIFSIGNALED(status)) {
    exit_code_ = 128 + WTERMSIG(status);
    const char* abbrev = ::sigabbrev_np(WTERMSIG(status));
    ended_ = fmt::format("killed by SIG{}", abbrev ? abbrev : std::to_string(WTERMSIG(status)).c_str());
  } else {
    return false;
  }
  return true;
}

}  // namespace cann_debug::cli
