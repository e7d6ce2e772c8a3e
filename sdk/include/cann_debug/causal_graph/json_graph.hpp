// The JSON form of a network (schema in docs/bayes.md): variables with states, descriptions, parents,
// CPT rows (positional or keyed by parent states), an optional default ("nothing wrong") state and an
// optional discretization of a feature into evidence on the variable.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cann_debug/causal_graph/network.hpp"

namespace cann_debug::bayes {

inline constexpr std::string_view kJsonGraphFormat = "cann-debug.bayes-graph/1";

/// Parses a JSON graph into a finalized network. Errors read "<origin>: <JSON pointer>: <what>", or
/// "<origin>: invalid JSON: ... line L, column C ..." for a syntax error.
Network parse_json_graph(std::string_view text, const std::string& origin,
                         double row_tolerance = kDefaultRowTolerance);

/// The JSON form of a network (positional CPT rows); parse_json_graph reads it back unchanged.
nlohmann::json to_json_graph(const Network& net);

}  // namespace cann_debug::bayes
