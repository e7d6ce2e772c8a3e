// Approximate inference by likelihood weighting. Variables are sampled in topological order; an observed
// variable is drawn from its CPT row times its likelihood (the optimal local proposal, which clamps hard
// evidence) and the sample's weight is multiplied by that product's sum. Marginals are weighted counts;
// P(e) is the mean weight.
#pragma once

#include <cstddef>
#include <cstdint>

#include "cann_debug/causal_graph/network.hpp"
#include "inference.hpp"

namespace cann_debug::bayes {

struct SamplingOptions {
  std::size_t samples = 100000;
  std::uint64_t seed = 1;
};

struct SamplingResult : InferenceResult {
  std::size_t samples = 0;
  double effective_sample_size = 0.0;  // (sum w)^2 / sum w^2
};

/// Throws EvidenceError when every sample has weight 0 (the evidence is impossible or too unlikely for
/// this many samples). Deterministic for a given seed.
SamplingResult likelihood_weighting(const Network& net, const Likelihoods& evidence,
                                    const SamplingOptions& options);

}  // namespace cann_debug::bayes
