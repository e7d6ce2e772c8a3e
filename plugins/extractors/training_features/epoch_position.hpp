// Whether the loss depends on where in the epoch a step falls: a one-way analysis of variance of the
// detrended series grouped by position in the epoch (a Buys-Ballot table). Any order that is the same every
// epoch (stored sorted, in class blocks, a permutation drawn once, or any of those behind a shuffle buffer
// smaller than the dataset) gives each position its own kind of batch, epoch after epoch; a fresh shuffle
// gives every position the same mix.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace cann_debug::plugins::training_detail {

/// The analysis of one series: the F statistic, its degrees of freedom, and the F as a standard normal
/// deviate (Wilson-Hilferty), so that runs of any length and epoch size read on one scale.
struct EpochPositionTest {
  double f = 0.0;
  std::size_t df_between = 0;
  std::size_t df_within = 0;
  double zscore = 0.0;
};

/// Tests `series` (one value per step, every step present, step 0 first) for an effect of the position in
/// an epoch of `period` steps. The series is detrended around its moving mean over exactly one epoch, which
/// cancels a component repeating every epoch and keeps it in the residual. Needs a period of at least 2
/// and two epochs of residuals (three epochs of steps); nullopt otherwise or when the residuals are constant.
std::optional<EpochPositionTest> epoch_position_test(const std::vector<double>& series, std::size_t period);

/// The upper-tail standard normal deviate of an F statistic with (d1, d2) degrees of freedom, by the
/// Wilson-Hilferty cube-root approximation (Abramowitz & Stegun 26.6.15).
double f_to_zscore(double f, std::size_t d1, std::size_t d2);

}  // namespace cann_debug::plugins::training_detail
