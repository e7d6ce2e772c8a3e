// Order statistics used by the inference features: quantiles and medians of small samples.
#pragma once

#include <vector>

namespace cann_debug::plugins::inference {

/// Linear-interpolation quantile (numpy's default, "type 7") of `values`, q in [0, 1]. Empty input: NaN.
double quantile(std::vector<double> values, double q);

/// quantile(values, 0.5).
double median(std::vector<double> values);

/// Arithmetic mean; empty input: NaN.
double mean(const std::vector<double>& values);

}  // namespace cann_debug::plugins::inference
