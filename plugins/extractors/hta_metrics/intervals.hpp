// Interval arithmetic as HTA does it (hta/utils/utils.py merge_kernel_intervals and the sweeps of
// breakdown_analysis.py / communication_analysis.py), on integer microseconds.
#pragma once

#include <cstdint>
#include <map>
#include <vector>

namespace cann_debug::plugins::hta {

struct Interval {
  std::int64_t ts;
  std::int64_t end;
  friend bool operator==(const Interval&, const Interval&) = default;
};

/// Sorts by start (ties by end) and unions overlapping or touching intervals: a new group starts when an
/// interval starts after every end seen so far. Intervals with end < ts (rounding of sub-microsecond events)
/// are kept as HTA keeps them.
std::vector<Interval> merge_intervals(std::vector<Interval> intervals);

/// Sum of (end - ts) of merged intervals.
std::int64_t total_length(const std::vector<Interval>& merged);

/// Sweep over several sets of merged intervals, set i adding 1 << i while active: the time spent in each
/// combination (bit mask > 0) of active sets. HTA's kernel-type breakdown and overlap analysis.
std::map<int, std::int64_t> sweep_combinations(const std::vector<std::vector<Interval>>& sets);

}  // namespace cann_debug::plugins::hta
