// Loss excursions: the loss held above its recent level for two rows running and then back, measured in the
// step-to-step noise of the rows before it (docs/features-training.md, "Spikes"). The spike test
// (loss_spikes.hpp) asks how high a spike rose against the level, which is what large-model teams roll back
// from; an excursion asks how unlikely the rise was for the run's own noise. A few corrupt batches thrown
// at a classifier sitting near chance level lift its loss by 15-40% for two or three steps: a minor spike
// by height, yet ten to forty noise sigmas on both rows, where minibatch noise, whose jumps are single
// steps, rarely holds two rows above four.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

struct LossExcursion {
  std::size_t start = 0;  // positions in the rows
  std::size_t back = 0;   // first row back at the level
  double zscore = 0.0;    // the lesser rise of the two rows, in step-noise sigmas of ln(loss)
  double height = 0.0;    // the higher of the two rows over the level, - 1
};

/// The excursion of `rows` with the largest z-score: two rows running at least 10% above the median of the
/// 25 losses before them (a quarter of the rows before them where fewer), after the warm-up, that the loss
/// came back from (within 5% or two noise sigmas of the level), and not a stored order's step-up at an epoch
/// start (spikes_off_epoch_starts). The noise is that of the last 50 steps or the whole run's, whichever is
/// larger. nullopt without one, or where a loss is not positive (no level to rise from in ratio).
std::optional<LossExcursion> find_largest_loss_excursion(const std::vector<LogRow>& rows,
                                                         std::optional<std::int64_t> steps_per_epoch);

/// loss.excursion_zscore (0 without an excursion, absent when the log is too short or has a loss <= 0),
/// and where there is one loss.excursion_height, loss.excursion_start_step and loss.excursion_end_step.
void add_loss_excursion_features(const std::vector<LogRow>& rows, std::optional<std::int64_t> steps_per_epoch,
                                 FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
