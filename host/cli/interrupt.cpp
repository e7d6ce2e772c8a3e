#include "interrupt.hpp"

#include <csignal>

namespace cann_debug::cli {
namespace {

std::atomic<int> g_interrupt{0};
static_assert(std::atomic<int>::is_always_lock_free);

extern "C" void on_signal(int) {
  // First signal: stop the sources and drain; second: cancel.
  const int level = g_interrupt.load(std::memory_order_relaxed);
  g_interrupt.store(level >= 1 ? 2 : 1, std::memory_order_relaxed);
}

}  // namespace

InterruptScope::InterruptScope() {
  g_interrupt.store(0, std::memory_order_relaxed);
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
}

InterruptScope::~InterruptScope() {
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);
}

const std::atomic<int>* InterruptScope::level() const {
  return &g_interrupt;
}

}  // namespace cann_debug::cli
