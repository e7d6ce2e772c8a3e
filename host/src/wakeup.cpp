#include "wakeup.hpp"

#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <thread>

namespace cann_debug::host {

Wakeup::Wakeup(int interrupt_fd) : interrupt_fd_(interrupt_fd) {
  event_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
}

Wakeup::~Wakeup() {
  if (event_fd_ >= 0) ::close(event_fd_);
}

void Wakeup::wake_all() const noexcept {
  if (event_fd_ < 0) return;
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(event_fd_, &one, sizeof one);  // never read: stays readable
}

void Wakeup::nap_until(std::chrono::steady_clock::time_point until) const {
  using namespace std::chrono;
  const auto now = steady_clock::now();
  if (now >= until) return;
  auto wait = duration_cast<nanoseconds>(until - now);
  if (interrupt_fd_ < 0) wait = std::min<nanoseconds>(wait, fallback_period);
  if (event_fd_ < 0) {  // no eventfd (out of descriptors): sleep in short steps as before
    std::this_thread::sleep_for(std::min<nanoseconds>(wait, fallback_period));
    return;
  }
  pollfd fds[2] = {{event_fd_, POLLIN, 0}, {interrupt_fd_, POLLIN, 0}};
  const timespec timeout{static_cast<time_t>(wait.count() / 1'000'000'000),
                         static_cast<long>(wait.count() % 1'000'000'000)};
  // A signal (EINTR) ends the nap early too; the caller looks at its flags and naps again.
  ::ppoll(fds, interrupt_fd_ >= 0 ? 2 : 1, &timeout, nullptr);
}

}  // namespace cann_debug::host
