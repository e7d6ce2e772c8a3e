// Turns a feature value into evidence on a variable, following the variable's Discretization spec.
#pragma once

#include <optional>
#include <vector>

#include "cann_debug/causal_graph/network.hpp"

namespace cann_debug::bayes {

struct Discretized {
  int hard_state = -1;       // >= 0: hard evidence on this state
  std::vector<double> soft;  // otherwise: one likelihood per state
};

/// Bin of x: the number of thresholds t with t <= x (so bin i holds t[i-1] <= x < t[i]).
std::size_t bin_of(const Discretization& spec, double x);

/// Hard evidence (soft_width = 0): the state of x's bin. Soft evidence (soft_width = w > 0): the
/// likelihood of bin i is F(t[i]) - F(t[i-1]) with F(t) = 1 / (1 + exp(-(t - x) / w)), F(-inf) = 0,
/// F(+inf) = 1 (the chance that the true value, x blurred by logistic noise of scale w, falls in the bin),
/// summed per state. Non-finite x: hard evidence on nonfinite_state, or nullopt when none is set.
std::optional<Discretized> discretize(const Variable& var, const Discretization& spec, double x);

}  // namespace cann_debug::bayes
