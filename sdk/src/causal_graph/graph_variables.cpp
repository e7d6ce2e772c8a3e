#include "cann_debug/causal_graph/graph_variables.hpp"

namespace cann_debug::bayes {

std::vector<GraphVariable> graph_variables(const Network& net) {
  std::vector<GraphVariable> out;
  out.reserve(net.size());
  for (const auto& var : net.variables) {
    GraphVariable gv{.name = var.name, .description = var.description, .states = var.states};
    for (int parent : var.parents) gv.parents.push_back(net.variables[static_cast<std::size_t>(parent)].name);
    if (var.discretization) {
      gv.feature = var.discretization->feature;
      gv.thresholds = var.discretization->thresholds;
      for (int s : var.discretization->bin_states) gv.bins.push_back(var.states[static_cast<std::size_t>(s)]);
    }
    out.push_back(std::move(gv));
  }
  return out;
}

}  // namespace cann_debug::bayes
