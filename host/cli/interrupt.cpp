#include "interrupt.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <csignal>

namespace cann_debug::cli {
namespace {

std::atomic<int> g_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free);
int g_pipe[2] = {-1, -1};  // the handler writes to [1]; [0] is the runner's wake-up descriptor

extern "C" void on_signal(int) {
  // First signal: stop the sources and drain; second: cancel.
  const int level = g_interrupt.load(std::memory_order_relaxed);
  g_interrupt.store(level >= 1 ? 2 : 1, std::memory_order_relaxed);
  if (g_pipe[1] >= 0) {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(g_pipe[1], &byte, 1);  // async-signal-safe; never read
  }
}

}  // namespace

InterruptScope::InterruptScope() {
  g_interrupt.store(0, std::memory_order_relaxed);
  if (::pipe2(g_pipe, O_CLOEXEC | O_NONBLOCK) != 0) g_pipe[0] = g_pipe[1] = -1;
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

InterruptScope::~InterruptScope() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
  for (int& fd : g_pipe) {
    if (fd >= 0) ::close(fd);
    fd = -1;
  }
}

const std::atomic<int>* InterruptScope::level() const {
  return &g_interrupt;
}

int InterruptScope::wake_fd() const {
  return g_pipe[0];
}

}  // namespace cann_debug::cli
