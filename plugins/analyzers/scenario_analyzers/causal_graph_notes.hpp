// What an analyzer needs to know of the causal graph to explain a diagnosis in words: each variable's
// description and the feature its discretisation reads. Read from the graph's JSON file (a BIF graph has
// neither, so it yields no notes).
#pragma once

#include <map>
#include <string>

namespace cann_debug::plugins::scenario {

struct VariableNote {
  std::string description;
  std::string feature;  // "" when the variable is not observed through a feature
};

/// variable -> note; empty for an empty path. Throws std::runtime_error naming the file when it exists
/// but is not a JSON graph.
std::map<std::string, VariableNote> read_graph_notes(const std::string& path);

}  // namespace cann_debug::plugins::scenario
