// Whether the loss jumps up where the epoch starts again. An order that is the same every epoch (stored
// sorted, in class blocks, a permutation drawn once, or any of those behind a small shuffle buffer) brings
// back at each epoch start the data the model has gone longest without, after a whole epoch fitted to the
// rest of the order: the loss steps up there. A fresh shuffle makes the epoch start an ordinary step (if
// anything its first batches hold samples seen recently, and the loss of a memorising network steps down).
// Unlike the epoch-lag and position tests this needs one epoch boundary, not three epochs.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace cann_debug::plugins::training_detail {

struct EpochStartJump {
  double jump = 0.0;               // median over the epoch starts of the step in the series there
  std::size_t boundaries = 0;      // epoch starts measured
  std::size_t first_measured = 0;  // position of the first epoch start with a window before it
  std::size_t null_phases = 0;     // other positions in the epoch the jump was compared with
  double zscore = 0.0;             // (jump - median of the others) / their robust spread
};

/// Steps on each side of a position whose medians make the jump there: the median of four is the mean of
/// the middle two, so one outlying batch on either side does not make or hide a jump.
inline constexpr std::size_t kEpochStartWindow = 4;
/// Shortest epoch the test measures, in windows: four, so that the positions away from the start outnumber
/// the start's own.
inline constexpr std::size_t kMinWindowsPerEpoch = 4;

/// Tests `series` (one value per step, every step present; ln(loss)) for a step up at the epoch starts
/// (positions first_start + k period, k >= 0; 0 when the series starts with an epoch): the jump at a
/// position t is the median of the `window` values
/// from t on minus the median of the `window` values before t; the median jump over the epoch starts (a
/// lone transient on one start of several moves it little) is compared with the median jump at every other
/// position in the epoch (the same multiples of the period
/// shifted by a phase at least `window` away from the start), so slow trends, the noise of this run and
/// whatever its neighbouring steps share cancel. `rate` (empty, or one learning rate per step) leaves out
/// any position where the rate rises: a warm restart throws the loss up wherever it falls. Needs a period
/// of at least 4 windows and one epoch start with a window on each side; nullopt otherwise or when the
/// other positions' jumps do not vary.
std::optional<EpochStartJump> epoch_start_jump_test(const std::vector<double>& series, std::size_t period,
                                                    const std::vector<double>& rate = {},
                                                    std::size_t first_start = 0,
                                                    std::size_t window = kEpochStartWindow);

}  // namespace cann_debug::plugins::training_detail
