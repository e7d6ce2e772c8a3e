#include "discretization.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::bayes {
namespace {

double logistic(double z) {
  return z >= 0 ? 1.0 / (1.0 + std::exp(-z)) : std::exp(z) / (1.0 + std::exp(z));
}

}  // namespace

std::size_t bin_of(const Discretization& spec, double x) {
  return static_cast<std::size_t>(std::upper_bound(spec.thresholds.begin(), spec.thresholds.end(), x) -
                                  spec.thresholds.begin());
}

std::optional<Discretized> discretize(const Variable& var, const Discretization& spec, double x) {
  Discretized out;
  if (!std::isfinite(x)) {
    if (spec.nonfinite_state < 0) return std::nullopt;
    out.hard_state = spec.nonfinite_state;
    return out;
  }
  if (spec.soft_width <= 0.0) {
    out.hard_state = spec.bin_states[bin_of(spec, x)];
    return out;
  }
  out.soft.assign(var.cardinality(), 0.0);
  double below = 0.0;  // F(t[i-1])
  for (std::size_t b = 0; b < spec.bin_states.size(); ++b) {
    const double upper =
        b < spec.thresholds.size() ? logistic((spec.thresholds[b] - x) / spec.soft_width) : 1.0;
    out.soft[static_cast<std::size_t>(spec.bin_states[b])] += std::max(upper - below, 0.0);
    below = upper;
  }
  return out;
}

}  // namespace cann_debug::bayes
