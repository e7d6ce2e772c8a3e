// Ctrl-C and SIGTERM while a pipeline runs: the first signal asks the runner to stop the sources and drain
// (what was collected is kept), the second to cancel. Shared by `run` and `collect`.
#pragma once

#include <atomic>

namespace cann_debug::cli {

/// Installs the handlers for its lifetime; level() is what RunOptions::interrupt points at.
class InterruptScope {
 public:
  InterruptScope();
  ~InterruptScope();
  InterruptScope(const InterruptScope&) = delete;
  InterruptScope& operator=(const InterruptScope&) = delete;

  const std::atomic<int>* level() const;
  /// Readable once a signal arrived (RunOptions::interrupt_fd), or -1 if no pipe could be made.
  int wake_fd() const;
};

}  // namespace cann_debug::cli
