// Features of the profiled model calls: request-time split (preprocess / model / postprocess), operators per
// batch, unfolded batch norms, the top operator's share and the gaps between operators.
#pragma once

#include <vector>

#include "cann_debug/messages.hpp"
#include "served_batches.hpp"

namespace cann_debug::plugins::inference {

/// Appends the trace features; returns the median service time of one model call (preprocess + forward +
/// postprocess, ms), NaN when the trace has no complete call.
double trace_features(const std::vector<ServedBatch>& batches, std::vector<Feature>& out);

}  // namespace cann_debug::plugins::inference
