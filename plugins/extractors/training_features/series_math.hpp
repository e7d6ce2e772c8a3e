// Plain statistics over series of finite values (medians, robust spread, detrending, autocorrelation)
// used by the training feature extractor. Inputs are copied where they must be reordered.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <optional>
#include <set>
#include <vector>

namespace cann_debug::plugins::training_detail {

/// MAD * 1.4826 estimates the standard deviation of normally distributed data.
inline constexpr double kMadToSigma = 1.4826;

inline double mean(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double sum = 0.0;
  for (double x : v) sum += x;
  return sum / static_cast<double>(v.size());
}

/// Median (mean of the two middle values for an even count); NaN for no values.
inline double median(std::vector<double> v) {
  if (v.empty()) return std::nan("");
  const std::size_t mid = v.size() / 2;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid), v.end());
  const double upper = v[mid];
  if (v.size() % 2 == 1) return upper;
  const double lower = *std::max_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(mid));
  return (lower + upper) / 2.0;
}

/// 1.4826 * median absolute deviation from the median: a standard deviation robust to outliers.
inline double robust_sigma(const std::vector<double>& v) {
  const double center = median(v);
  std::vector<double> dev;
  dev.reserve(v.size());
  for (double x : v) dev.push_back(std::fabs(x - center));
  return kMadToSigma * median(std::move(dev));
}

/// Median of the 2 * half_width + 1 values centred on each position whose whole window lies inside the
/// series (index i of the result is position i + half_width of v); empty when the series is shorter.
/// One ordered window slides along (O(n log width)): a million-row log with a window of 40 001 rows takes
/// seconds, not hours.
inline std::vector<double> running_median(const std::vector<double>& v, std::size_t half_width) {
  std::vector<double> out;
  const std::size_t width = 2 * half_width + 1;
  if (v.size() < width) return out;
  out.reserve(v.size() - width + 1);
  std::multiset<double> window(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(width));
  auto mid = std::next(window.begin(), static_cast<std::ptrdiff_t>(half_width));
  out.push_back(*mid);
  for (std::size_t i = width; i < v.size(); ++i) {
    // Insert the new value, then drop the oldest, keeping `mid` on the middle rank (equal values insert
    // after their equals, so only a smaller one moves the middle up).
    window.insert(v[i]);
    if (v[i] < *mid) --mid;
    const double old = v[i - width];
    if (old <= *mid) ++mid;
    window.erase(window.lower_bound(old));
    out.push_back(*mid);
  }
  return out;
}

/// Residual of each value around the median of the 2 * half_width + 1 values centred on it. Removes slow
/// trends and keeps step-to-step noise. Only positions whose whole window lies inside the series are
/// returned (a window clipped at an end is off-centre and would count the trend as noise).
inline std::vector<double> residual_around_running_median(const std::vector<double>& v,
                                                          std::size_t half_width) {
  std::vector<double> out = running_median(v, half_width);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = v[i + half_width] - out[i];
  return out;
}

/// Residual of v around its moving mean over exactly `period` consecutive values (centred). A moving mean
/// over one full period cancels a component with that period, so the trend is removed and the periodic
/// part stays in the residual. Only positions whose whole window lies inside the series are returned
/// (index i of the result is position i + period / 2 of v); empty when the series is shorter than period.
inline std::vector<double> residual_around_moving_mean(const std::vector<double>& v, std::size_t period) {
  std::vector<double> out;
  if (period == 0 || v.size() < period) return out;
  std::vector<double> prefix(v.size() + 1, 0.0);
  for (std::size_t i = 0; i < v.size(); ++i) prefix[i + 1] = prefix[i] + v[i];
  const std::size_t before = period / 2;
  for (std::size_t start = 0; start + period <= v.size(); ++start) {
    const double trend = (prefix[start + period] - prefix[start]) / static_cast<double>(period);
    out.push_back(v[start + before] - trend);
  }
  return out;
}

/// Pearson correlation of v[i] with v[i + lag]; nullopt with fewer than `min_pairs` pairs or a constant side.
inline std::optional<double> autocorrelation(const std::vector<double>& v, std::size_t lag,
                                             std::size_t min_pairs) {
  if (lag == 0 || v.size() <= lag || v.size() - lag < min_pairs) return std::nullopt;
  const std::size_t n = v.size() - lag;
  const std::vector<double> a(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(n));
  const std::vector<double> b(v.begin() + static_cast<std::ptrdiff_t>(lag), v.end());
  const double ma = mean(a), mb = mean(b);
  double sab = 0.0, saa = 0.0, sbb = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    sab += (a[i] - ma) * (b[i] - mb);
    saa += (a[i] - ma) * (a[i] - ma);
    sbb += (b[i] - mb) * (b[i] - mb);
  }
  if (saa <= 0.0 || sbb <= 0.0) return std::nullopt;
  return sab / std::sqrt(saa * sbb);
}

/// The rank of each value (0 = smallest), ties sharing their mean rank. Correlating ranks instead of values
/// (Spearman) keeps one outlier pair from making a correlation: a converged run's loss residuals are
/// heavy-tailed (one batch holding a rare hard example sits 25x above the others), and two such batches one
/// lag apart give a Pearson correlation of 0.5 where the ranks give 0.
inline std::vector<double> ranks(const std::vector<double>& v) {
  std::vector<std::size_t> order(v.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return v[a] < v[b]; });
  std::vector<double> r(v.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
    const double shared = 0.5 * static_cast<double>(i + j);
    for (std::size_t k = i; k <= j; ++k) r[order[k]] = shared;
    i = j + 1;
  }
  return r;
}

/// Root mean square of the values.
inline double rms(const std::vector<double>& v) {
  if (v.empty()) return 0.0;
  double ss = 0.0;
  for (double x : v) ss += x * x;
  return std::sqrt(ss / static_cast<double>(v.size()));
}

/// Least-squares slope of y against x (same length, at least two distinct x); nullopt otherwise.
inline std::optional<double> slope(const std::vector<double>& x, const std::vector<double>& y) {
  if (x.size() != y.size() || x.size() < 2) return std::nullopt;
  const double mx = mean(x), my = mean(y);
  double sxy = 0.0, sxx = 0.0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my);
    sxx += (x[i] - mx) * (x[i] - mx);
  }
  if (sxx <= 0.0) return std::nullopt;
  return sxy / sxx;
}

}  // namespace cann_debug::plugins::training_detail
