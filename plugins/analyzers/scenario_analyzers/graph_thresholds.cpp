// See graph_thresholds.hpp.
#include "graph_thresholds.hpp"

namespace cann_debug::plugins::scenario {

double state_threshold(const std::vector<GraphVariable>& graph, std::string_view variable,
                       std::string_view state, double fallback) {
  for (const GraphVariable& v : graph) {
    if (v.name != variable) continue;
    if (v.bins.size() != v.thresholds.size() + 1) return fallback;
    for (std::size_t bin = 1; bin < v.bins.size(); ++bin)
      if (v.bins[bin] == state && v.bins[bin - 1] != state) return v.thresholds[bin - 1];
    return fallback;
  }
  return fallback;
}

}  // namespace cann_debug::plugins::scenario
