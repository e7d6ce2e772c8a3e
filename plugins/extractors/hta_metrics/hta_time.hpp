// HTA's microseconds. HTA reads Kineto's float microseconds into doubles and, when they are floats, rounds
// each event inward: ts = ceil(ts), end = floor(ts + dur), dur = end - ts. To give the same integers, the
// nearest double to the file's own microsecond value is rebuilt from exact nanoseconds.
#pragma once

#include <cmath>
#include <cstdint>

namespace cann_debug::plugins::hta {

/// The double that Python's float() gives for the decimal text of `ns` / 1000 (exact for texts with at most
/// three decimals, as Kineto writes them: the fraction r/1000 is either exactly representable or far from a
/// rounding tie).
inline double us_double(std::int64_t ns) {
  const std::int64_t q = ns / 1000;
  const std::int64_t r = ns % 1000;
  return static_cast<double>(q) + static_cast<double>(r) / 1000.0;
}

struct UsSpan {
  std::int64_t ts;
  std::int64_t end;
};

/// `file_ns`: the event's start on the file's own clock (ns; Kineto's ts * 1000), `dur_ns` its duration.
inline UsSpan hta_round(std::int64_t file_ns, std::int64_t dur_ns) {
  const double ts = us_double(file_ns);
  const double end = ts + us_double(dur_ns);
  return {static_cast<std::int64_t>(std::ceil(ts)), static_cast<std::int64_t>(std::floor(end))};
}

}  // namespace cann_debug::plugins::hta
