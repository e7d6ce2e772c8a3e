// Deterministic noise for the recording tests: the same series on every machine and every run.
#pragma once

#include <cstdint>

namespace cann_debug::testing {

/// A value in [-1, 1] for sample `i` of series `s` (a 64-bit mix of both, no state).
inline double noise(std::uint64_t i, int s) {
  std::uint64_t x = (i + 1) * 6364136223846793005ULL + static_cast<std::uint64_t>(s) * 1442695040888963407ULL;
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;
  x ^= x >> 33;
  return static_cast<double>(x % 2'000'001) / 1'000'000.0 - 1.0;
}

}  // namespace cann_debug::testing
