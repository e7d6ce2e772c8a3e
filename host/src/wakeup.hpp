// Sleeping until a deadline while staying wakeable: a source thread naps the whole interval between polls
// (one wake-up per poll, however long the interval) and still stops at once when the run is cancelled or
// interrupted. A cancel writes to an eventfd; an interrupt (Ctrl-C, SIGTERM) makes the file descriptor
// the caller passes readable (a pipe its signal handler writes to). Both are left readable, so every
// thread napping then, and every later nap, returns at once.
#pragma once

#include <chrono>

namespace cann_debug::host {

class Wakeup {
 public:
  /// `interrupt_fd`: readable once the run is interrupted, or -1 (then naps wake every `fallback_period`
  /// to look at the interrupt flag themselves).
  explicit Wakeup(int interrupt_fd = -1);
  ~Wakeup();
  Wakeup(const Wakeup&) = delete;
  Wakeup& operator=(const Wakeup&) = delete;

  /// Wakes every nap, now and later (async-signal-safe).
  void wake_all() const noexcept;
  /// Sleeps until `until` or until woken (wake_all, or the interrupt descriptor became readable). Without
  /// an interrupt descriptor it returns every `fallback_period` so the caller can look at its flags; the
  /// caller loops until its deadline or flags say stop.
  void nap_until(std::chrono::steady_clock::time_point until) const;

  static constexpr std::chrono::milliseconds fallback_period{20};

 private:
  int event_fd_ = -1;
  int interrupt_fd_ = -1;
};

}  // namespace cann_debug::host
