// The exceptions of the Bayesian-network core (GraphError, the graph loaders' one, is the SDK's). Every
// message names where the problem is: a network and clique size (inference), a variable and state
// (evidence).
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>

#include "cann_debug/causal_graph/graph_error.hpp"  // GraphError, the loaders' exception

namespace cann_debug::bayes {

/// Exact inference would need a clique table larger than the configured limit.
class TooLargeError : public std::runtime_error {
 public:
  TooLargeError(const std::string& message, double clique_entries, std::size_t clique_variables)
      : std::runtime_error(message), clique_entries_(clique_entries), clique_variables_(clique_variables) {}
  /// Entries of the largest clique table of the best elimination order found.
  double clique_entries() const { return clique_entries_; }
  std::size_t clique_variables() const { return clique_variables_; }

 private:
  double clique_entries_;
  std::size_t clique_variables_;
};

/// Evidence that names unknown variables or states, has invalid likelihoods, or has probability zero.
class EvidenceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cann_debug::bayes
