// The step of the loss at the epoch starts against every other position in the epoch; see
// epoch_start_jump.hpp.
#include "epoch_start_jump.hpp"

#include <cmath>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

// Fewest other positions whose spread the epoch starts are measured against.
constexpr std::size_t kMinNullPhases = 8;

// A rise of the rate by more than this share between two steps is a restart, not a schedule's drift.
constexpr double kRateRise = 1e-3;

}  // namespace

std::optional<EpochStartJump> epoch_start_jump_test(const std::vector<double>& series, std::size_t period,
                                                    const std::vector<double>& rate, std::size_t first_start,
                                                    std::size_t window) {
  const std::size_t n = series.size();
  if (window == 0 || period < kMinWindowsPerEpoch * window || n < period + window) return std::nullopt;
  const auto rate_rises = [&](std::size_t t) {
    return rate.size() == n && rate[t] > rate[t - 1] + kRateRise * std::fabs(rate[t - 1]);
  };
  const auto jump_at = [&](std::size_t t) {
    const auto first = series.begin() + static_cast<std::ptrdiff_t>(t);
    const std::ptrdiff_t w = static_cast<std::ptrdiff_t>(window);
    return median(std::vector<double>(first, first + w)) - median(std::vector<double>(first - w, first));
  };
  // The first epoch start with a window before it; every phase is measured from there on, so that the
  // epoch starts and the other positions come from the same epochs.
  EpochStartJump test;
  test.first_measured = first_start % period;
  while (test.first_measured < window) test.first_measured += period;
  const std::size_t first_measured = test.first_measured;
  // Median jump at the positions `phase` steps after an epoch start (a stored order steps up at every
  // epoch start; one transient that falls on one of several does not make them jump); nullopt when none has
  // a window after it.
  const auto median_jump = [&](std::size_t phase, std::size_t& count) -> std::optional<double> {
    std::vector<double> jumps;
    for (std::size_t t = first_measured + phase; t + window <= n; t += period) {
      if (rate_rises(t)) continue;
      jumps.push_back(jump_at(t));
    }
    count = jumps.size();
    if (jumps.empty()) return std::nullopt;
    return median(jumps);
  };
  const auto at_start = median_jump(0, test.boundaries);
  if (!at_start) return std::nullopt;
  std::vector<double> others;
  for (std::size_t phase = window; phase + window <= period; ++phase) {
    std::size_t count = 0;
    if (const auto m = median_jump(phase, count)) others.push_back(*m);
  }
  if (others.size() < kMinNullPhases) return std::nullopt;
  const double spread = robust_sigma(others);
  if (!(spread > 0.0)) return std::nullopt;
  test.jump = *at_start;
  test.null_phases = others.size();
  test.zscore = (*at_start - median(others)) / spread;
  return test;
}

}  // namespace cann_debug::plugins::training_detail
