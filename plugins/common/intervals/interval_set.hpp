// Lengths of unions and overlaps of half-open time intervals [begin, end) in ns: the arithmetic behind
// "how long was this thread communicating", "how much of it overlapped backward", "how long did the device
// sit idle in the DataLoader" (distributed_features, hardware_features).
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace cann_debug::plugins {

struct Interval {
  std::int64_t begin = 0;
  std::int64_t end = 0;  // exclusive; end <= begin means empty
};

/// The union of `intervals` as sorted, disjoint, non-empty intervals.
inline std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
  std::erase_if(intervals, [](const Interval& i) { return i.end <= i.begin; });
  std::sort(intervals.begin(), intervals.end(),
            [](const Interval& a, const Interval& b) { return a.begin < b.begin; });
  std::vector<Interval> merged;
  for (const Interval& i : intervals) {
    if (!merged.empty() && i.begin <= merged.back().end)
      merged.back().end = std::max(merged.back().end, i.end);
    else
      merged.push_back(i);
  }
  return merged;
}

/// Total length of the union of `intervals`.
inline std::int64_t union_length(const std::vector<Interval>& intervals) {
  std::int64_t total = 0;
  for (const Interval& i : merge_intervals(intervals)) total += i.end - i.begin;
  return total;
}

/// Length of (union of a) intersected with (union of b).
inline std::int64_t overlap_length(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  const std::vector<Interval> ma = merge_intervals(a);
  const std::vector<Interval> mb = merge_intervals(b);
  std::int64_t total = 0;
  std::size_t i = 0, j = 0;
  while (i < ma.size() && j < mb.size()) {
    const std::int64_t lo = std::max(ma[i].begin, mb[j].begin);
    const std::int64_t hi = std::min(ma[i].end, mb[j].end);
    if (hi > lo) total += hi - lo;
    if (ma[i].end < mb[j].end)
      ++i;
    else
      ++j;
  }
  return total;
}

/// `intervals` clipped to [window.begin, window.end); empty pieces dropped.
inline std::vector<Interval> clip_intervals(const std::vector<Interval>& intervals, const Interval& window) {
  std::vector<Interval> out;
  for (const Interval& i : intervals) {
    const Interval c{std::max(i.begin, window.begin), std::min(i.end, window.end)};
    if (c.end > c.begin) out.push_back(c);
  }
  return out;
}

}  // namespace cann_debug::plugins
