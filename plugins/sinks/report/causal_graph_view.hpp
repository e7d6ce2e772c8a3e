// The causal graph as the report draws it, from the posterior: variables in layers (root causes → mechanisms
// → symptoms), edges parent → child, the top cause's propagation path highlighted, observed states shown.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "report_model.hpp"

namespace cann_debug::report {

/// The graph a posterior answers on (its `variables`: name, description, states, parents), each variable in
/// the layer of its longest chain of ancestors (0 = no parents); nullopt when the posterior carries no
/// variables. Throws std::runtime_error naming the graph when a variable has an unknown parent or the
/// parents form a cycle (a posterior read back from a file need not come from a checked graph).
std::optional<CausalGraphView> causal_graph_view(const Posterior& posterior);

/// Adds what the run says: the hard-evidence state of each observed variable, the likeliest state of each
/// posterior marginal, and the path of the top cause ("var=state" entries; the diagnosis' first root cause,
/// else the posterior's first ranked cause) with the edges between consecutive path variables.
void annotate_causal_graph(CausalGraphView& graph, const std::optional<Diagnosis>& diagnosis,
                           const std::optional<Posterior>& posterior,
                           const std::optional<Evidence>& evidence);

}  // namespace cann_debug::report
