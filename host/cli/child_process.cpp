#include "child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
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

/// argv[0] as execve needs it: a name without '/' looked up in PATH (before fork: the child may only make
/// async-signal-safe calls). "" when nothing executable is found.
std::string resolve_in_path(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string_view dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  while (true) {
    const auto colon = dirs.find(':');
    std::string dir(dirs.substr(0, colon));
    const std::string candidate = (dir.empty() ? std::string(".") : dir) + "/" + name;
    struct stat st {};
    if (::stat(candidate.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(candidate.c_str(), X_OK) == 0)
      return candidate;
    if (colon == std::string_view::npos) return {};
    dirs.remove_prefix(colon + 1);
  }
}

/// fork + exec for what posix_spawn cannot do (resource limits). Returns the pid, or -errno; a failure in
/// the child after fork (chdir, exec) is sent back through a close-on-exec pipe.
pid_t fork_exec(const ChildSpec& spec, int out_fd, int err_fd, char* const* argv, char* const* envp) {
  const std::string file = resolve_in_path(spec.argv.front());
  if (file.empty()) return -ENOENT;
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return -errno;
  struct rlimit limits[4];
  const int resources[4] = {RLIMIT_CPU, RLIMIT_AS, RLIMIT_FSIZE, RLIMIT_NOFILE};
  const std::uint64_t values[4] = {spec.limits.cpu_seconds, spec.limits.address_space_bytes,
                                   spec.limits.file_size_bytes, spec.limits.open_files};
  for (int i = 0; i < 4; ++i) limits[i] = {static_cast<rlim_t>(values[i]), static_cast<rlim_t>(values[i])};
  const pid_t pid = ::fork();
  if (pid < 0) {
    const int error = errno;
    ::close(report[0]);
    ::close(report[1]);
    return -error;
  }
  if (pid == 0) {
    ::setpgid(0, 0);
    struct sigaction dfl {};
    dfl.sa_handler = SIG_DFL;
    for (int sig : {SIGINT, SIGTERM, SIGPIPE, SIGHUP, SIGQUIT, SIGCHLD}) ::sigaction(sig, &dfl, nullptr);
    sigset_t empty;
    sigemptyset(&empty);
    ::sigprocmask(SIG_SETMASK, &empty, nullptr);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    int error = 0;
    if (!spec.cwd.empty() && ::chdir(spec.cwd.c_str()) != 0) error = errno;
    for (int i = 0; i < 4 && error == 0; ++i)
      if (values[i] && ::setrlimit(resources[i], &limits[i]) != 0) error = errno;
    if (error == 0) {
      ::execve(file.c_str(), argv, envp);
      error = errno;
    }
    (void)!::write(report[1], &error, sizeof error);
    ::_exit(127);
  }
  ::close(report[1]);
  int error = 0;
  ssize_t got;
  while ((got = ::read(report[0], &error, sizeof error)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (got == static_cast<ssize_t>(sizeof error)) {
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return -error;
  }
  return pid;
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
  int rc = 0;
  if (spec.limits.any() || !spec.cwd.empty()) {
    const pid_t pid = fork_exec(spec, out.write, err.write, argv.data(), envp.data());
    rc = pid < 0 ? static_cast<int>(-pid) : 0;
    pid_ = pid;
  } else {
    rc = ::posix_spawnp(&pid_, name.c_str(), &actions, &attr, argv.data(), envp.data());
  }
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
