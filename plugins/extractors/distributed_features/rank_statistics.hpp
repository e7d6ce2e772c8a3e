// Small statistics across ranks: medians, "how far does the most extreme rank stand from the others",
// Dixon's Q. Ranks are few (2..64), so everything copies and sorts.
#pragma once

#include <algorithm>
#include <cstddef>
#include <vector>

namespace cann_debug::plugins::distributed {

/// Median (mean of the two middle values for an even count); 0 for no values.
inline double median_of(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t mid = v.size() / 2;
  return v.size() % 2 == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2.0;
}

/// Median of all values except the one at `skip`.
inline double median_without(const std::vector<double>& v, std::size_t skip) {
  std::vector<double> rest;
  for (std::size_t i = 0; i < v.size(); ++i)
    if (i != skip) rest.push_back(v[i]);
  return median_of(std::move(rest));
}

inline std::size_t index_of_max(const std::vector<double>& v) {
  return static_cast<std::size_t>(std::max_element(v.begin(), v.end()) - v.begin());
}

inline std::size_t index_of_min(const std::vector<double>& v) {
  return static_cast<std::size_t>(std::min_element(v.begin(), v.end()) - v.begin());
}

/// Dixon's Q of the largest value: (x(n) - x(n-1)) / (x(n) - x(1)); 0 when all values are equal. Needs at
/// least 3 values (returns 0 below that).
inline double dixon_q_of_max(std::vector<double> v) {
  if (v.size() < 3) return 0.0;
  std::sort(v.begin(), v.end());
  const double range = v.back() - v.front();
  return range > 0.0 ? (v.back() - v[v.size() - 2]) / range : 0.0;
}

}  // namespace cann_debug::plugins::distributed
