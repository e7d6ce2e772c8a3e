// Thresholds of the causal graph in use, for the figures of a diagnosis that restate a variable's state in
// words (an observation must say "periodic" where the graph read "periodic", whichever graph that is).
#pragma once

#include <string_view>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::scenario {

/// The value from which the discretization of `variable` reads `state` (the lower bound of the first bin
/// of that state), as the posterior's graph carries it; `fallback` when that graph has no such variable,
/// no thresholds for it, or `state` only in its lowest bin.
double state_threshold(const std::vector<GraphVariable>& graph, std::string_view variable,
                       std::string_view state, double fallback);

}  // namespace cann_debug::plugins::scenario
