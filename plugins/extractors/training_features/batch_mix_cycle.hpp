// Whether the batches' class mix comes and goes in a cycle shorter than the epoch: data stored in class
// blocks (shards written class by class) and read behind a shuffle buffer smaller than a block give batches
// whose mix swings from one class to the next and back, steadily, while a fresh shuffle gives every batch the
// same expected mix and only sampling noise around it. The output layer's bias gradient is the batch's mean
// (softmax - one-hot), so its norm follows the swing (once per block: either class's excess raises it); its
// spectrum shows a line at the block's period where a random order's is flat. The test is Bartlett's
// averaged periodogram (segments of equal length, each read as the ranks of its values, which a few
// outlying batches cannot dominate, less their least-squares line, so that the learning curve does not leak
// into the band) and Fisher's question: does the highest ordinate stand out from the others more than the
// largest of that many ordinates of noise would.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// Steps per segment of the averaged periodogram: periods from 2 steps to a third of it are tested.
inline constexpr std::size_t kCycleSegment = 64;

struct CycleTest {
  /// The highest ordinate of the averaged periodogram over the mean of the other ordinates of the band.
  double peak_over_rest = 0.0;
  /// Its period, in steps.
  double period_steps = 0.0;
  /// Segments averaged, their length in steps, and ordinates compared.
  std::size_t segments = 0;
  std::size_t segment = 0;
  std::size_t ordinates = 0;
  /// The chance that noise gives a peak this high anywhere in the band (Bonferroni over the ordinates), as
  /// a standard normal deviate: about 0 or below for a flat spectrum, 5 or more for a steady line.
  double zscore = 0.0;
};

/// Tests `series` (one value per step, every step present) for a steady cycle with a period from 2 to a
/// third of `segment` steps. Under a flat spectrum an averaged ordinate over the mean of the others is
/// F(2K, 2K(M-1)) for K segments and M ordinates. Where an `epoch` of steps is known and at most a third of
/// a segment, the segments are cut to whole epochs and the ordinates of the epoch's harmonics are left out:
/// what comes back every epoch is the epoch tests' to read (they take out the line a fresh shuffle draws
/// along a short epoch that a network memorises over thousands of them; a spectrum would read it as a
/// cycle). Needs three segments and three ordinates; nullopt otherwise or for a series whose segments are
/// constant.
std::optional<CycleTest> cycle_test(const std::vector<double>& series, std::optional<std::size_t> epoch = {},
                                    std::size_t segment = kCycleSegment);

/// Appends `grad.output_bias_cycle_zscore` (the test on ln ||gradient of the output layer's bias||) and
/// `grad.output_bias_cycle_period` (the period of the highest ordinate, steps) where every row of a log of
/// one row per step logs a positive, finite norm for that bias (`output_bias`, output_layer_bias) over
/// three segments; `steps_per_epoch` as cycle_test's epoch.
void add_batch_mix_cycle_features(const std::vector<LogRow>& rows,
                                  std::optional<std::int64_t> steps_per_epoch,
                                  const std::optional<std::string>& output_bias, FeatureList& out);

/// ln of the upper tail probability of the standard normal at z, accurate where the probability underflows.
double log_normal_upper_tail(double z);

/// The z whose upper tail probability has logarithm `log_p` (< 0): the inverse of log_normal_upper_tail;
/// -40 for a log_p of 0 or more.
double normal_deviate_of_log_tail(double log_p);

}  // namespace cann_debug::plugins::training_detail
