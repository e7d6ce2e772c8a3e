// Whether the loss depends on where in the epoch a step falls: a one-way analysis of variance of the
// detrended series grouped by position in the epoch (a Buys-Ballot table). Any order that is the same every
// epoch (stored sorted, in class blocks, a permutation drawn once, or any of those behind a shuffle buffer
// smaller than the dataset) gives each position its own kind of batch, epoch after epoch; a fresh shuffle
// gives every position the same mix, except for one straight line: drawn without replacement, the batches
// late in an epoch hold samples last seen longer ago (a step k of the epoch holds samples seen k + E/2
// steps before on average, E the epoch), and a network that memorises its data forgets them a little, so
// over many epochs its loss rises along the epoch and drops where the next one starts. The test takes
// that line out before it compares the positions.
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
  /// Slope of the position means along the epoch (per step), the line taken out before the test.
  double recency_slope = 0.0;
  /// How smooth the profile of the position means is along the epoch: their lag-1 autocorrelation (the
  /// line out) as a standard normal deviate against a profile of independent means, (r1 + 1/n) sqrt(n).
  /// Batches of random samples read the same way every epoch (a reused permutation) have a profile of
  /// independent means; an order whose neighbouring batches are of a kind (sorted by label or by a feature,
  /// class blocks read in turn) has a smooth one, which a shuffle buffer mixing the neighbours within a block
  /// whitens. Set for epochs of at least kMinProfilePositions steps.
  std::optional<double> profile_lag1_zscore;
};

/// Fewest positions whose profile's smoothness is read.
inline constexpr std::size_t kMinProfilePositions = 8;

/// Tests `series` (one value per step, every step present, step 0 first) for an effect of the position in
/// an epoch of `period` steps whose first start is at index `first_start` of the series. The series is
/// detrended around its moving mean over exactly one epoch, which cancels a component repeating every epoch
/// and keeps it in the residual; the positions' means are compared after the least-squares line through
/// them along the epoch is taken out (the recency of a fresh shuffle without replacement, above), so the F
/// has period - 2 degrees of freedom between positions (period - 1 for an epoch of two steps, where a line
/// is all there is and none is taken out). Needs a period of at least 2 and two epochs of residuals (three
/// epochs of steps); nullopt otherwise or when the residuals are constant.
std::optional<EpochPositionTest> epoch_position_test(const std::vector<double>& series, std::size_t period,
                                                     std::size_t first_start = 0);

/// The upper-tail standard normal deviate of an F statistic with (d1, d2) degrees of freedom, by the
/// Wilson-Hilferty cube-root approximation (Abramowitz & Stegun 26.6.15).
double f_to_zscore(double f, std::size_t d1, std::size_t d2);

}  // namespace cann_debug::plugins::training_detail
