// Loss-curve shape features that mean the same whatever the optimizer, data order, batch size or run
// length: where the loss went relative to where it started (peak, rebound) and whether neighbouring
// batches resemble each other (lag-1 autocorrelation of the detrended loss and gradient norm).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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

/// loss.epoch_position_zscore, grad_norm.epoch_position_zscore and their Stouffer combination
/// data.epoch_position_zscore: whether the loss and the gradient norm depend on the position in the epoch
/// (epoch_position.hpp), on every row of the run, spikes included (a hard class block brings its spike back
/// at the same position each epoch). Both on a log scale where positive throughout: a loss that falls by
/// decades has residuals in proportion to its level, and the effect of a stored order is a share of the
/// loss rather than an amount. Needs one row per step, no step missing. `output_bias`: the output layer's
/// bias (output_layer_bias), whose gradient norm is tested too where every row logs a positive one.
void add_epoch_position_features(const std::vector<LogRow>& rows, std::optional<std::int64_t> steps_per_epoch,
                                 const std::optional<std::string>& output_bias, FeatureList& out);

/// loss.epoch_start_jump_zscore: how far the loss steps up where the epoch starts again, against every
/// other position in the epoch (epoch_start_jump.hpp), on every row of the run, on a log scale (none where
/// a loss is zero or negative), epoch starts where the learning rate rises left out. Needs one row per step
/// and epochs of at least 16 steps.
void add_epoch_start_jump_feature(const std::vector<LogRow>& rows,
                                  std::optional<std::int64_t> steps_per_epoch, FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
