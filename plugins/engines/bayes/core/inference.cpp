#include "inference.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::bayes {

double max_abs_difference(const InferenceResult& a, const InferenceResult& b) {
  double worst = 0.0;
  for (std::size_t v = 0; v < a.marginals.size() && v < b.marginals.size(); ++v)
    for (std::size_t s = 0; s < a.marginals[v].size() && s < b.marginals[v].size(); ++s)
      worst = std::max(worst, std::fabs(a.marginals[v][s] - b.marginals[v][s]));
  return worst;
}

}  // namespace cann_debug::bayes
