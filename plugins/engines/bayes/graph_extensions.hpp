// The extension keys (names starting with '_') a JSON causal graph may put on its variables. The SDK's
// loader skips them; the bayes plugins read the ones they know:
//   "_context": true   the variable describes how the run was set up (a configured batch size or warm-up),
//                      not what it showed: discretize uses its evidence only when the input also shows a
//                      symptom to weigh it against, so a configuration value is never the verdict by itself.
// cpt_learn carries every extension key of the prior graph over to the graph it writes.
#pragma once

#include <map>
#include <set>
#include <string>

#include <nlohmann/json.hpp>

namespace cann_debug::plugins::bayes_detail {

/// variable name -> its extension keys and values, read from a JSON graph file; empty for a BIF file or a
/// graph without extensions. Throws std::runtime_error when a .json file cannot be read or parsed.
std::map<std::string, nlohmann::json> variable_extensions(const std::string& graph_path);

/// Names of the variables marked "_context": true.
std::set<std::string> context_variables(const std::map<std::string, nlohmann::json>& extensions);

/// Copies the extension keys onto the variables of the same name in `graph_doc` (a cann-debug.bayes-graph/1
/// document); keys the document already has are left alone.
void add_variable_extensions(nlohmann::json& graph_doc,
                             const std::map<std::string, nlohmann::json>& extensions);

}  // namespace cann_debug::plugins::bayes_detail
