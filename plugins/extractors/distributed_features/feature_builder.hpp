// Turns what was collected over a run (per-rank traces, per-rank log rows, the config) into features:
// one feature.set/1 per traced rank (scope "rank", label rank=N) and one for the run (scope "run").
// docs/features-distributed.md describes every feature.
#pragma once

#include <vector>

#include "cann_debug/messages.hpp"
#include "run_inputs.hpp"

namespace cann_debug::plugins::distributed {

/// Per-rank sets first (rank order), the run set last. A feature whose inputs are absent is left out.
std::vector<FeatureSet> build_feature_sets(const RunInputs& inputs);

}  // namespace cann_debug::plugins::distributed
