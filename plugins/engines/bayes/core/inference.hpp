// What every engine answers for one evidence set.
#pragma once

#include <functional>
#include <vector>

#include "evidence.hpp"

namespace cann_debug::bayes {

struct InferenceResult {
  std::vector<std::vector<double>> marginals;  // [variable][state] = P(variable = state | evidence)
  double log_p_evidence = 0.0;                 // natural log of P(evidence) (likelihood-weighted for soft)
};

/// An engine as a function, so ranking works the same over exact and sampling engines.
using InferenceFn = std::function<InferenceResult(const Likelihoods&)>;

/// Largest |a - b| over all marginals of two results of the same network.
double max_abs_difference(const InferenceResult& a, const InferenceResult& b);

}  // namespace cann_debug::bayes
