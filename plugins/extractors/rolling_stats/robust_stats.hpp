// Plain statistics over a window of finite values: mean, sample standard deviation, median, median absolute
// deviation and the robust z-score. Inputs are copied; nothing here allocates more than one window.
#pragma once

#include <algorithm>
#include <cmath>
#include <vector>

namespace cann_debug::plugins::rolling_detail {

/// |robust z| never exceeds this; it is also the value when MAD is 0 and x differs from the median.
inline constexpr double kRobustZCap = 1e6;
/// MAD * 1.4826 estimates the standard deviation of normally distributed data.
inline constexpr double kMadToSigma = 1.4826;

inline double mean(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

/// Sample standard deviation (divides by n - 1); 0 for fewer than two values.
inline double sample_std(const std::vector<double>& v) {
  if (v.size() < 2) return 0.0;
  const double m = mean(v);
  double ss = 0.0;
  for (double x : v) ss += (x - m) * (x - m);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

/// Median (mean of the two middle values for an even count); 0 for no values. Takes a copy to reorder.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

/// Median absolute deviation from `center` (the median of the same values).
inline double mad(const std::vector<double>& v, double center) {
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - center));
  return median(std::move(dev));
}

/// (x - median) / (1.4826 * MAD), capped at +-kRobustZCap. With MAD = 0 it is 0 when x equals the median and
/// +-kRobustZCap (the sign of x - median) otherwise, so a jump out of a constant series stays finite.
inline double robust_z(double x, double med, double mad_value) {
  const double diff = x - med;
  if (mad_value <= 0.0) {
    if (diff == 0.0) return 0.0;
    return diff > 0 ? kRobustZCap : -kRobustZCap;
  }
  return std::clamp(diff / (kMadToSigma * mad_value), -kRobustZCap, kRobustZCap);
}

}  // namespace cann_debug::plugins::rolling_detail
