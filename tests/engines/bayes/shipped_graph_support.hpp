// Helpers of the tests of the shipped causal graphs (pipelines/graphs/<scenario>.json): where a graph is and
// the posterior of one root cause given hard evidence.
#pragma once

#include <filesystem>
#include <map>
#include <string>

#include "cann_debug/causal_graph/graph_loader.hpp"
#include "core/evidence.hpp"
#include "core/junction_tree.hpp"

namespace cann_debug::bayes::test {

/// pipelines/graphs/<scenario>.json of the source tree.
inline std::string shipped_graph(const std::string& scenario) {
  return (std::filesystem::path(CANN_DEBUG_SOURCE_DIR) / "pipelines" / "graphs" / (scenario + ".json"))
      .string();
}

/// P(root_cause = cause | evidence), each entry of `evidence` a variable's observed state.
inline double root_posterior(const Network& net, const std::map<std::string, std::string>& evidence,
                             const std::string& cause) {
  JunctionTree tree(net);
  const auto result = tree.query(make_likelihoods(net, evidence, {}));
  const int root = net.find("root_cause");
  const auto& states = net.variables[static_cast<std::size_t>(root)];
  return result.marginals.at(static_cast<std::size_t>(root))
      .at(static_cast<std::size_t>(states.state_index(cause)));
}

}  // namespace cann_debug::bayes::test
