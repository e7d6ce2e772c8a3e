// Loss spikes: excursions of the loss above the level it had just reached, found step by step, each with its
// start, peak, height and whether (and when) the loss came back. The loss-curve features of the run are
// computed on the rows outside the spikes the run recovered from, so that a transient does not read as a
// run that learns badly; the spikes are features of their own (docs/features-training.md, "Spikes").
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// A spike rises at least 10% above the level before it (and five noise sigmas).
inline constexpr double kSpikeRise = 0.10;
/// It has ended when the loss is back within 5% of the level before it, or within two noise sigmas of it
/// where a step's noise is larger than that (a small batch's loss after one hard batch).
inline constexpr double kSpikeBackMargin = 0.05;
inline constexpr double kSpikeBackSigmas = 2.0;
/// Near zero the loss has only noise left: spikes count from a level of at least a tenth of the first loss.
inline constexpr double kSpikeMinLevelOfFirst = 0.1;

struct LossSpike {
  std::size_t start = 0;  // positions in the rows the spikes were found in
  std::size_t peak = 0;
  std::size_t end = 0;  // first row back at the level before the spike; rows.size() when it never came back
  double base = 0.0;    // the level before the spike (median of the loss just before it)
  double back = 0.0;    // the loss it had to come back under: base + the larger of 5% and two noise sigmas
  double height = 0.0;  // peak / base - 1; +inf when the loss became NaN or infinite in it
  bool recovered = false;
  bool in_warmup = false;  // started while the learning rate was still rising, or in the first 5% of rows
  bool reached_first_loss = false;  // its peak reached the run's first finite loss (the untrained network's)
};

/// The position of the first row from which the learning rate stays at its peak (it starts below 90% of
/// it); 0 without a warm-up in the log.
std::size_t lr_warmup_end(const std::vector<LogRow>& rows);

/// The rows a spike test counts as the warm-up: those before lr_warmup_end, and at least the first 5%
/// (where the log has no learning rate).
std::size_t warmup_rows(const std::vector<LogRow>& rows);

/// The spikes of the loss in `rows` (rows without a loss are skipped, never part of a spike's start).
std::vector<LossSpike> find_loss_spikes(const std::vector<LogRow>& rows);

/// The rows the run's curve features describe: every row but those inside the spikes it recovered from,
/// provided they are few and short (at most kMaxCutSpikes spikes covering at most a quarter of the rows);
/// otherwise every row (a loss that keeps jumping is the run's shape, not a transient).
std::vector<LogRow> rows_outside_recovered_spikes(const std::vector<LogRow>& rows,
                                                  const std::vector<LossSpike>& spikes);

/// The step-ups of ln(loss) at a run's epoch starts (less than kEpochStartWindow steps from a row whose epoch
/// differs from the row before, or without epochs in the rows from every steps_per_epoch-th step), measured
/// once for the run, for the test whether a recovered spike at one of them is the order's step-up. Only a run
/// whose epochs are long enough for the epoch-start test (16 steps and more) has any.
class EpochStartStepUps {
 public:
  EpochStartStepUps(const std::vector<LogRow>& rows, std::optional<std::int64_t> steps_per_epoch);

  /// Whether `s` is a stored order's step-up: it recovered, starts at an epoch start, and the run's other
  /// epoch starts step the loss up by at least a quarter of its log height (median over them). There the loss
  /// steps up because the order of the data starts again (loss.epoch_start_jump_zscore reads it), which a
  /// spike test sees as a transient; counted as spikes they made a stored order look like a spiky run. A
  /// transient that falls on one epoch start (a few corrupt batches) stands alone.
  bool repeats_at_other_starts(const std::vector<LogRow>& rows, const LossSpike& s) const;

 private:
  struct Start {
    std::int64_t step = 0;
    std::optional<double> step_up;  // median ln(loss) of the window after it minus the window before it
  };
  std::vector<Start> starts_;
};

/// The spikes but those `step_ups` (measured on the same rows) calls a stored order's step-up.
std::vector<LossSpike> spikes_off_epoch_starts(const std::vector<LogRow>& rows,
                                               const std::vector<LossSpike>& spikes,
                                               const EpochStartStepUps& step_ups);

/// loss.spike_* and loss.late_divergence_* features.
void add_loss_spike_features(const std::vector<LogRow>& rows, const std::vector<LossSpike>& spikes,
                             FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
