// What a posterior/1 carries of the graph it answers on: each variable's name, description, states,
// parents and the feature its discretization reads (no tables), for the components downstream of an
// engine that explain, draw or list the graph.
#pragma once

#include <vector>

#include "cann_debug/causal_graph/network.hpp"
#include "cann_debug/messages.hpp"

namespace cann_debug::bayes {

/// The variables of `net` in file order, as Posterior::variables holds them.
std::vector<GraphVariable> graph_variables(const Network& net);

}  // namespace cann_debug::bayes
