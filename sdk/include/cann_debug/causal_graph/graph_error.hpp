// The exception of the causal-graph loaders: a graph file that cannot be read, parsed, or that describes
// an invalid network. Every message names where the problem is: a file and line (BIF), a file and JSON
// pointer (JSON graphs), the network and the variable (checks).
#pragma once

#include <stdexcept>

namespace cann_debug::bayes {

class GraphError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace cann_debug::bayes
