// Loss excursions: the loss held above its recent level for two to four rows running and then back, measured
// in the step-to-step noise of the rows before it (docs/features-training.md, "Spikes"). The spike test
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
#include "loss_spikes.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

struct LossExcursion {
  std::size_t start = 0;  // positions in the rows
  std::size_t peak = 0;   // the highest of its rows
  std::size_t back = 0;   // first row back at the level
  double zscore = 0.0;    // the lesser rise of its k rows in step-noise sigmas of ln(loss), times sqrt(k / 2)
  double height = 0.0;    // the highest of its rows over the level, - 1
  double level = 0.0;     // the loss before it (median of the losses just before it)
  double back_under = 0.0;  // the loss it came back under: the level plus the larger of 5% and two sigmas
  // No other excursion of kCutExcursionZscore sigmas or more outside its rows: a transient, not the crests of
  // an oscillating loss (each of which, in a loss with little step noise, is an excursion of many sigmas).
  bool stands_alone = true;
};

/// What the excursion search of a run found: whether its loss could be searched at all (every loss positive,
/// at least 12 finite ones), and the largest excursion where there is one.
struct ExcursionSearch {
  bool searched = false;
  std::optional<LossExcursion> largest;
};

/// The excursion of `rows` with the largest z-score: two to four rows running at least 10% above the median
/// of the 25 losses before them (a quarter of the rows before them where fewer), after the warm-up, that the
/// loss came back from (within 5% or two noise sigmas of the level), and not a stored order's step-up at an
/// epoch start (EpochStartStepUps). The noise is that of the last 50 steps or the whole run's, whichever is
/// larger. Not searched where a loss is not positive (no level to rise from in ratio) or the log is short.
/// `step_ups` are those of the same rows.
ExcursionSearch search_loss_excursions(const std::vector<LogRow>& rows, const EpochStartStepUps& step_ups);

/// An excursion of at least this many sigmas is a transient like a spike: the curve features leave its rows
/// out (1 healthy run of 234 in the workload matrix and its probes reaches it).
inline constexpr double kCutExcursionZscore = 3.5;

/// `spikes` (in order) with the largest excursion inserted in order as one more recovered spike, where it
/// reads at least kCutExcursionZscore, stands alone and overlaps none of them: the transients
/// rows_outside_recovered_spikes leaves out of the curve features. Left in, three corrupt batches held up in
/// a row made the detrended loss of a freshly shuffled run correlate with its neighbour (lag 1), the
/// signature of a stored order.
std::vector<LossSpike> spikes_and_excursion(const std::vector<LossSpike>& spikes,
                                            const std::optional<LossExcursion>& excursion);

/// loss.excursion_zscore (0 without an excursion, absent when the loss was not searched), and where there is
/// one loss.excursion_height, loss.excursion_start_step and loss.excursion_end_step.
void add_loss_excursion_features(const std::vector<LogRow>& rows, const ExcursionSearch& search,
                                 FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
