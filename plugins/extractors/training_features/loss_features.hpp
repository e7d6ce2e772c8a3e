// Loss-based features of a training run: trend, spikes, non-finite values, step-to-step noise,
// oscillation and periodicity against the epoch length. They need only a 'loss' column, so they also
// exist for epoch-level logs (one row per epoch).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// Rows per epoch from the 'epoch' column: the median length of the runs of equal epoch values that are
/// complete (an epoch change before and after). nullopt without two epoch changes.
std::optional<std::int64_t> steps_per_epoch_from_rows(const std::vector<LogRow>& rows);

/// The steps at which an epoch starts: those of the rows whose epoch differs from the row before; where the
/// rows show no such change, every step after the first row's that is a multiple of `steps_per_epoch`
/// (a log counted from step 0 starts with an epoch). Ascending.
std::vector<std::int64_t> epoch_start_steps(const std::vector<LogRow>& rows, std::int64_t steps_per_epoch);

/// Index in `rows` (one per step, no step missing) of the first epoch start of epoch_start_steps; nullopt
/// without one.
std::optional<std::size_t> first_epoch_start_row(const std::vector<LogRow>& rows,
                                                 std::int64_t steps_per_epoch);

/// Half width of the running median the step-to-step noise of the loss is measured around: by the loss
/// noise features and by the rebound's noise margin.
inline constexpr std::size_t kStepNoiseHalfWidth = 5;

/// Appends the loss features of `rows` (those with a 'loss' value) to `out`. `steps_per_epoch` is the lag
/// for the epoch periodicity; `batch_size` (optional) scales the noise to a per-sample figure.
void add_loss_features(const std::vector<LogRow>& rows, std::optional<std::int64_t> steps_per_epoch,
                       std::optional<std::int64_t> batch_size, FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
