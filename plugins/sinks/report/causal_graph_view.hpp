// The causal graph as the report draws it: variables in layers (root causes → mechanisms → symptoms),
// edges parent → child, the top cause's propagation path highlighted, observed states shown.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "report_model.hpp"

namespace cann_debug::report {

/// Reads the variables (name, description, states, parents) of a `cann-debug.bayes-graph/1` JSON file and
/// puts each in the layer of its longest chain of ancestors (0 = no parents). Throws std::runtime_error
/// naming the file (and the byte offset or JSON pointer) when it cannot be read, is not JSON, or a variable
/// lacks a name, has an unknown parent, or the parents form a cycle.
CausalGraphView load_causal_graph(const std::string& path);

/// Adds what the run says: the hard-evidence state of each observed variable, the likeliest state of each
/// posterior marginal, and the path of the top cause ("var=state" entries; the diagnosis' first root cause,
/// else the posterior's first ranked cause) with the edges between consecutive path variables.
void annotate_causal_graph(CausalGraphView& graph, const std::optional<Diagnosis>& diagnosis,
                           const std::optional<Posterior>& posterior,
                           const std::optional<Evidence>& evidence);

}  // namespace cann_debug::report
