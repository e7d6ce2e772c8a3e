// How much a suggestion changed its target metric (`cann-debug optimize`): the relative improvement of a
// candidate run over the baseline run of the same repeat, the mean over repeats with a 95% Student-t
// interval, the median, and a rank test of whether the candidate's runs are better than the baseline's.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::cli {

/// Which way the target metric improves (a knowledge-base template's `target_better`; "lower" when absent).
enum class Better { kLower, kHigher, kCloserToZero };
std::optional<Better> parse_better(std::string_view text);
std::string_view better_name(Better better);

/// The relative improvement of `candidate` over `baseline`: (b - c) / |b| for kLower, (c - b) / |b| for
/// kHigher, (|b| - |c|) / |b| for kCloserToZero. A non-finite baseline (a NaN loss) against a finite
/// candidate is 1, the reverse -1, both non-finite 0. A baseline of 0 compares absolutely: 0 when equal, else
/// ±1.
double relative_improvement(double baseline, double candidate, Better better);

struct Estimate {
  std::size_t n = 0;
  double mean = 0.0;
  std::optional<double> low, high;  // the 95% interval of the mean (n >= 2)
};

/// Mean and 95% interval (Student t with n - 1 degrees of freedom) of the per-repeat improvements.
Estimate estimate(const std::vector<double>& values);

/// The two-sided 95% quantile of Student's t with `df` degrees of freedom (df >= 1).
double t_quantile_95(std::size_t df);

double median(std::vector<double> values);

/// One-sided Mann-Whitney U test that the candidate's values are better (in `better`'s direction; a
/// non-finite value is the worst) than the baseline's: the probability of a U at least as large under no
/// difference, exact for up to 20 values a side (ties count a half), else the normal approximation. 1 when
/// a side is empty.
double mann_whitney_p(const std::vector<double>& baseline, const std::vector<double>& candidate,
                      Better better);

}  // namespace cann_debug::cli
