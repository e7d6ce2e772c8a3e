// Whether every step trains on the same batch: a loader re-created each step (next(iter(loader)) in the
// loop) or a stored order with one step per epoch hands the first batch of the dataset to every step, so
// the loss becomes a deterministic function of the weights and follows its trend exactly.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// The share of the steps whose loss differs from the step before and equals the median of the
/// 2 * half_width + 1 losses centred on it: about 1 / (2 * half_width + 1) where batches differ (the centre
/// is the window's median only by chance), 1 for a loss that moves smoothly without batch noise. A loss
/// stuck at one value (saturated, or underflowed to zero after a blow-up) does not count, since it does not
/// differ from the step before. nullopt with fewer than 20 such steps to look at.
std::optional<double> on_trend_fraction(const std::vector<double>& loss, std::size_t half_width);

/// loss.on_trend_fraction over the finite losses of the run, and data.repeated_batch_share (the same
/// value) where config.json says the dataset holds more samples than a batch: then a loss without batch
/// noise is one batch seen again and again, not full-batch training.
void add_repeated_batch_features(const std::vector<LogRow>& rows, const RunConfig& config, FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
