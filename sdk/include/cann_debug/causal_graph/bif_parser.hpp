// Reader of BIF 0.15 files in the bnlearn/pgmpy layout (rows keyed by parent state names, `table` for
// roots), the JavaBayes layout (quoted names, one `table` over child x parents with the child varying
// slowest and the last parent fastest) and the `default` rows of other public files. See docs/bayes.md.
#pragma once

#include <string>
#include <string_view>

#include "cann_debug/causal_graph/network.hpp"

namespace cann_debug::bayes {

/// Parses BIF text into a finalized network; `origin` (usually the path) prefixes every error as
/// "<origin>:<line>:<column>: ...". Rows are divided by their sum when |sum - 1| <= row_tolerance and
/// rejected otherwise.
Network parse_bif(std::string_view text, const std::string& origin,
                  double row_tolerance = kDefaultRowTolerance);

}  // namespace cann_debug::bayes
