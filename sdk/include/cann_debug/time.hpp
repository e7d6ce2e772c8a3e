// Time conventions: every timestamp is nanoseconds since the Unix epoch (UTC), signed 64-bit.
#pragma once

#include <chrono>
#include <cstdint>
#include <limits>

namespace cann_debug {

using TimestampNs = std::int64_t;
inline constexpr TimestampNs kNoTimestamp = std::numeric_limits<TimestampNs>::min();

inline TimestampNs wall_clock_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// Seconds since the epoch (float, as in training logs) to ns since the epoch.
inline constexpr TimestampNs seconds_to_ns(double seconds) {
  return static_cast<TimestampNs>(seconds * 1e9 + (seconds >= 0 ? 0.5 : -0.5));
}

}  // namespace cann_debug
