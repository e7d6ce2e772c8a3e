// Stretches of a series where a condition holds: the window a hardware finding names.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <vector>

#include "hardware_series.hpp"

namespace cann_debug::plugins::hardware {

struct Stretch {
  std::size_t first = 0, last = 0;  // sample indices, inclusive
  TimestampNs start = 0, end = 0;   // times of those samples
  std::size_t samples() const { return last - first + 1; }
  TimestampNs duration() const { return end - start; }
};

/// What makes a stretch count: at least `min_samples` samples and `min_duration` long, one sample where
/// the condition does not hold tolerated inside (a reading between two throttled ones).
struct StretchRule {
  std::size_t min_samples = 3;
  TimestampNs min_duration = 0;
};

/// Every stretch of `samples` where `holds(i)` is true, longest first (ties: earliest first).
std::vector<Stretch> stretches(const std::vector<Sample>& samples,
                               const std::function<bool(std::size_t)>& holds, const StretchRule& rule);

/// The time the samples cover, counting each sample for the interval to the next one (the last one for the
/// median interval): the share of a run a stretch took is stretch time / covered time.
TimestampNs covered_time(const std::vector<Sample>& samples);
/// Time covered by the samples first..last (same counting as covered_time).
TimestampNs covered_time(const std::vector<Sample>& samples, std::size_t first, std::size_t last);

double median(std::vector<double> values);

}  // namespace cann_debug::plugins::hardware
