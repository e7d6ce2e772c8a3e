// Reads a graph file: `.bif` as BIF, `.json` as the JSON form; other names by their first character.
#pragma once

#include <string>

#include "cann_debug/causal_graph/network.hpp"

namespace cann_debug::bayes {

/// Loads and finalizes the network in `path`. Throws GraphError ("cannot read <path>: ..." or the
/// parser's located message).
Network load_graph(const std::string& path, double row_tolerance = kDefaultRowTolerance);

/// The whole content of a file; throws GraphError naming the path when it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace cann_debug::bayes
