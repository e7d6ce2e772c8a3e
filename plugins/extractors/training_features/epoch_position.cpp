// One-way analysis of variance of a detrended series by position in the epoch; see epoch_position.hpp.
#include "epoch_position.hpp"

#include <cmath>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// Fewest residuals behind the test (besides two epochs of them).
constexpr std::size_t kMinResiduals = 20;

}  // namespace

double f_to_zscore(double f, std::size_t d1, std::size_t d2) {
  const double a = 2.0 / (9.0 * static_cast<double>(d1));
  const double b = 2.0 / (9.0 * static_cast<double>(d2));
  const double root = std::cbrt(f);
  return ((1.0 - b) * root - (1.0 - a)) / std::sqrt(b * root * root + a);
}

std::optional<EpochPositionTest> epoch_position_test(const std::vector<double>& series, std::size_t period,
                                                     std::size_t first_start) {
  if (period < 2) return std::nullopt;
  const std::vector<double> residual = residual_around_moving_mean(series, period);
  if (residual.size() < 2 * period || residual.size() < kMinResiduals) return std::nullopt;
  // Residual i belongs to step i + period / 2; its position in the epoch counts steps from an epoch start.
  const std::size_t offset = period / 2 + period - first_start % period;
  const auto position_of = [&](std::size_t i) { return (i + offset) % period; };
  std::vector<double> sum(period, 0.0);
  std::vector<std::size_t> count(period, 0);
  for (std::size_t i = 0; i < residual.size(); ++i) {
    sum[position_of(i)] += residual[i];
    ++count[position_of(i)];
  }
  // Two epochs of residuals: every position holds at least two of them.
  std::vector<double> position_mean(period);
  for (std::size_t p = 0; p < period; ++p) position_mean[p] = sum[p] / static_cast<double>(count[p]);
  const double grand = mean(residual);
  double between = 0.0;
  for (std::size_t p = 0; p < period; ++p)
    between += static_cast<double>(count[p]) * (position_mean[p] - grand) * (position_mean[p] - grand);
  double within = 0.0;
  for (std::size_t i = 0; i < residual.size(); ++i) {
    const double d = residual[i] - position_mean[position_of(i)];
    within += d * d;
  }
  EpochPositionTest test;
  test.df_between = period - 1;
  test.df_within = residual.size() - period;
  if (period > 2) {
    // The weighted least-squares line through the position means along the epoch, and the part of the
    // between-position sum of squares it explains.
    double weight = 0.0, centre = 0.0;
    for (std::size_t p = 0; p < period; ++p) {
      weight += static_cast<double>(count[p]);
      centre += static_cast<double>(count[p] * p);
    }
    centre /= weight;
    double sxx = 0.0, sxy = 0.0;
    for (std::size_t p = 0; p < period; ++p) {
      const double x = static_cast<double>(p) - centre;
      sxx += static_cast<double>(count[p]) * x * x;
      sxy += static_cast<double>(count[p]) * x * (position_mean[p] - grand);
    }
    test.recency_slope = sxy / sxx;
    between = std::max(0.0, between - sxy * sxy / sxx);
    test.df_between = period - 2;
    if (period >= kMinProfilePositions) {
      std::vector<double> profile(period);
      for (std::size_t p = 0; p < period; ++p)
        profile[p] = position_mean[p] - grand - test.recency_slope * (static_cast<double>(p) - centre);
      double lag1 = 0.0, power = 0.0;
      for (std::size_t p = 0; p < period; ++p) {
        power += profile[p] * profile[p];
        if (p + 1 < period) lag1 += profile[p] * profile[p + 1];
      }
      if (power > 0.0) {
        const double n = static_cast<double>(period);
        test.profile_lag1_zscore = (lag1 / power + 1.0 / n) * std::sqrt(n);
      }
    }
  }
  if (!(within > 0.0)) return std::nullopt;
  test.f = (between / static_cast<double>(test.df_between)) / (within / static_cast<double>(test.df_within));
  test.zscore = f_to_zscore(test.f, test.df_between, test.df_within);
  return test;
}

}  // namespace cann_debug::plugins::training_detail
