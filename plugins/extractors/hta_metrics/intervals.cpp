#include "intervals.hpp"

#include <algorithm>
#include <utility>

namespace cann_debug::plugins::hta {

std::vector<Interval> merge_intervals(std::vector<Interval> v) {
  std::sort(v.begin(), v.end(),
            [](const Interval& a, const Interval& b) { return a.ts != b.ts ? a.ts < b.ts : a.end < b.end; });
  std::vector<Interval> out;
  std::int64_t max_end = 0;  // the largest end so far (pandas' cummax of the previous ends)
  for (const auto& iv : v) {
    if (out.empty() || iv.ts > max_end) {
      out.push_back(iv);
      max_end = out.size() == 1 ? iv.end : std::max(max_end, iv.end);
      continue;
    }
    out.back().end = std::max(out.back().end, iv.end);
    max_end = std::max(max_end, iv.end);
  }
  return out;
}

std::int64_t total_length(const std::vector<Interval>& merged) {
  std::int64_t sum = 0;
  for (const auto& iv : merged) sum += iv.end - iv.ts;
  return sum;
}

std::map<int, std::int64_t> sweep_combinations(const std::vector<std::vector<Interval>>& sets) {
  std::vector<std::pair<std::int64_t, int>> points;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    const int bit = 1 << i;
    for (const auto& iv : sets[i]) {
      points.emplace_back(iv.ts, bit);
      points.emplace_back(iv.end, -bit);
    }
  }
  // Ties contribute zero-length segments, so their order does not change any sum.
  std::stable_sort(points.begin(), points.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::map<int, std::int64_t> time;
  int running = 0;
  for (std::size_t k = 0; k + 1 < points.size(); ++k) {
    running += points[k].second;
    if (running > 0) time[running] += points[k + 1].first - points[k].first;
  }
  return time;
}

}  // namespace cann_debug::plugins::hta
