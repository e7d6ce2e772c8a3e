#include "improvement.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::cli {

std::optional<Better> parse_better(std::string_view text) {
  if (text == "lower") return Better::kLower;
  if (text == "higher") return Better::kHigher;
  if (text == "closer_to_zero") return Better::kCloserToZero;
  return std::nullopt;
}

std::string_view better_name(Better better) {
  switch (better) {
    case Better::kLower:
      return "lower";
    case Better::kHigher:
      return "higher";
    case Better::kCloserToZero:
      return "closer_to_zero";
  }
  return "lower";
}

double relative_improvement(double baseline, double candidate, Better better) {
  const bool b_ok = std::isfinite(baseline), c_ok = std::isfinite(candidate);
  if (!b_ok || !c_ok) return b_ok == c_ok ? 0.0 : (c_ok ? 1.0 : -1.0);
  if (better == Better::kCloserToZero) {
    baseline = std::fabs(baseline);
    candidate = std::fabs(candidate);
  }
  const double gain = better == Better::kHigher ? candidate - baseline : baseline - candidate;
  if (baseline == 0.0) return gain == 0.0 ? 0.0 : (gain > 0 ? 1.0 : -1.0);
  return gain / std::fabs(baseline);
}

double t_quantile_95(std::size_t df) {
  static constexpr double kTable[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                                      2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                                      2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
  if (df == 0) return INFINITY;
  if (df <= std::size(kTable)) return kTable[df - 1];
  if (df <= 60) return 2.000;
  if (df <= 120) return 1.980;
  return 1.960;
}

Estimate estimate(const std::vector<double>& values) {
  Estimate e;
  e.n = values.size();
  if (values.empty()) return e;
  double sum = 0.0;
  for (double v : values) sum += v;
  e.mean = sum / static_cast<double>(e.n);
  if (e.n < 2) return e;
  double squares = 0.0;
  for (double v : values) squares += (v - e.mean) * (v - e.mean);
  const double sd = std::sqrt(squares / static_cast<double>(e.n - 1));
  const double half = t_quantile_95(e.n - 1) * sd / std::sqrt(static_cast<double>(e.n));
  e.low = e.mean - half;
  e.high = e.mean + half;
  return e;
}

double median(std::vector<double> values) {
  if (values.empty()) return NAN;
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  return n % 2 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
}

namespace {

/// How bad a value is: lower is better; non-finite values are the worst.
double badness(double v, Better better) {
  if (!std::isfinite(v)) return INFINITY;
  switch (better) {
    case Better::kHigher:
      return -v;
    case Better::kCloserToZero:
      return std::fabs(v);
    case Better::kLower:
      break;
  }
  return v;
}

}  // namespace

double mann_whitney_p(const std::vector<double>& baseline, const std::vector<double>& candidate,
                      Better better) {
  const std::size_t n = candidate.size(), m = baseline.size();
  if (n == 0 || m == 0) return 1.0;
  // U: pairs (candidate, baseline) where the candidate is better; a tie counts a half.
  double u = 0.0;
  for (double c : candidate)
    for (double b : baseline) {
      const double bc = badness(c, better), bb = badness(b, better);
      u += bc < bb ? 1.0 : bc == bb ? 0.5 : 0.0;
    }
  if (n <= 20 && m <= 20) {
    // counts[i][j][k]: orderings of i candidate and j baseline values whose U is k.
    const std::size_t max_u = n * m;
    std::vector<std::vector<std::vector<double>>> counts(
        n + 1, std::vector<std::vector<double>>(m + 1, std::vector<double>(max_u + 1, 0.0)));
    for (std::size_t i = 0; i <= n; ++i)
      for (std::size_t j = 0; j <= m; ++j) {
        if (i == 0 || j == 0) {
          counts[i][j][0] = 1.0;
          continue;
        }
        // The largest value is a candidate's (it beats no baseline value: U from the rest) or a baseline's
        // (every candidate value beats it: +i).
        for (std::size_t k = 0; k <= i * j; ++k)
          counts[i][j][k] = counts[i - 1][j][k] + (k >= i ? counts[i][j - 1][k - i] : 0.0);
      }
    double total = 0.0, tail = 0.0;
    for (std::size_t k = 0; k <= max_u; ++k) {
      total += counts[n][m][k];
      if (static_cast<double>(k) >= u - 1e-9) tail += counts[n][m][k];
    }
    return tail / total;
  }
  const double mean = 0.5 * static_cast<double>(n * m);
  const double sd = std::sqrt(static_cast<double>(n * m * (n + m + 1)) / 12.0);
  const double z = (u - 0.5 - mean) / sd;
  return 0.5 * std::erfc(z / std::sqrt(2.0));
}

}  // namespace cann_debug::cli
