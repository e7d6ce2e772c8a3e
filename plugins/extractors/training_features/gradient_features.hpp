// Gradient-based features of a training run: the distribution and spikes of the total gradient norm,
// clipping (share of clipped steps and how far above the threshold), the first/last layer gradient ratio
// and per-layer norms, and the learning-rate context. They need a 'grad_norm' column (per-step logs).
#pragma once

#include <vector>

#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// Appends the gradient and learning-rate features of `rows` to `out`. `config` supplies the clipping
/// threshold and learning rate when the rows do not carry them.
void add_gradient_features(const std::vector<LogRow>& rows, const RunConfig& config, FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
