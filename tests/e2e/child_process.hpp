// Runs the real cann-debug binary as a child process, with its output captured in files.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace cann_debug::testing {

class ChildProcess {
 public:
  ChildProcess(std::vector<std::string> args, const std::filesystem::path& scratch) {
    out_path_ = scratch / "stdout.txt";
    err_path_ = scratch / "stderr.txt";
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 1, out_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&actions, 2, err_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ok_ = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), environ) == 0;
    posix_spawn_file_actions_destroy(&actions);
  }
  ~ChildProcess() {
    if (ok_ && !waited_) {
      kill(pid_, SIGKILL);
      wait();
    }
  }
  bool started() const { return ok_; }
  pid_t pid() const { return pid_; }
  void signal(int sig) { kill(pid_, sig); }
  /// Exit code, or 128 + signal; -1 when it did not end within the timeout (it is then killed).
  int wait(std::chrono::seconds timeout = std::chrono::seconds(60)) {
    auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (true) {
      pid_t r = waitpid(pid_, &status, WNOHANG);
      if (r == pid_) break;
      if (std::chrono::steady_clock::now() > deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &status, 0);
        waited_ = true;
        return -1;
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    waited_ = true;
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + WTERMSIG(status);
  }
  std::string out() const { return slurp(out_path_); }
  std::string err() const { return slurp(err_path_); }

  static std::string slurp(const std::filesystem::path& p) {
    std::ifstream in(p);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }

 private:
  pid_t pid_ = -1;
  bool ok_ = false;
  bool waited_ = false;
  std::filesystem::path out_path_, err_path_;
};

}  // namespace cann_debug::testing
