// Loss-curve shape features that mean the same whatever the optimizer, data order, batch size or run
// length: where the loss went relative to where it started (peak, rebound) and whether neighbouring
// batches resemble each other (lag-1 autocorrelation of the detrended loss and gradient norm).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

void add_loss_shape_features(const std::vector<LogRow>& rows, std::optional<std::int64_t> steps_per_epoch,
                             FeatureList& out);

/// loss.log10_max_over_first: the highest single finite loss over the first one, in decades, on every row
/// (spikes included). A rate far too high throws the loss up by orders of magnitude for a step or two and
/// may then leave it at exactly zero (logits so large that the cross-entropy underflows), which a running
/// median and any test relative to the level before a spike read as calm.
void add_loss_blowup_feature(const std::vector<LogRow>& rows, FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
