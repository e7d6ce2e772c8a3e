// The benchmark's baseline: plain variable elimination, once per variable, eliminating the other
// variables in a fixed topological order (parents first, or its reverse), with nothing cached between
// variables or queries and no pruning of barren or irrelevant variables.
#pragma once

#include "cann_debug/causal_graph/network.hpp"
#include "core/inference.hpp"

namespace cann_debug::bayes::bench {

enum class NaiveOrder { kTopological, kReverseTopological };

/// All posterior marginals and log P(e). Throws TooLargeError when an intermediate factor would exceed
/// `max_factor_entries`.
InferenceResult naive_all_marginals(const Network& net, const Likelihoods& evidence, NaiveOrder order,
                                    double max_factor_entries);

}  // namespace cann_debug::bayes::bench
