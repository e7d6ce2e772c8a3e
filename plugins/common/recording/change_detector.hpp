// Online anomaly test of one series of values, O(1) per value: what anomaly-window retention
// (`collect --compress`) and the anomaly-window detector (`diagnose --follow`) both judge values by.
//
//   - robust z-score: z = (x - m) / s, where m is an exponentially weighted mean and s an exponentially
//     weighted mean absolute deviation (x 1.2533, the normal-consistent scale), both updated with the value
//     clipped (Huber), so a spike does not drag them; s has a floor of rel_floor * |m|;
//   - change points: a two-sided CUSUM of z (drift k, threshold h); on an alarm the baseline restarts at the
//     new level, so a step change is reported once rather than flagged until the mean has caught up.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

namespace cann_debug::plugins::recording {

struct DetectorOptions {
  double z_threshold = 6.0;
  std::size_t warmup = 20;  // values that only train the baseline
  double alpha = 0.05;      // EWMA weight of a new value
  double cusum_k = 0.5, cusum_h = 12.0;
  double rel_floor = 0.01;  // s >= rel_floor * |m|
  /// Largest |z| one value adds to the CUSUM: with h = 12 and a clip of 6, a level shift needs three
  /// values in a row, so one wild reading is an outlier, not a change point (infinity: no clip).
  double cusum_z_clip = std::numeric_limits<double>::infinity();
  /// After a change point, learn the new level's noise afresh (`warmup` values without alarms) instead of
  /// keeping the old scale: a series that went from idle (no noise) to busy (noisy) would otherwise alarm
  /// on every value until its scale caught up.
  bool restart_on_change = false;
};

class SeriesBaseline {
 public:
  enum class Verdict { kNormal, kOutlier, kChange };

  /// Judges `x` against the baseline, then updates the baseline with it.
  Verdict judge(double x, const DetectorOptions& options);

  /// Sign of the last value's deviation (0 when it was not finite).
  int side() const { return side_; }
  /// The last value's z-score (0 before the baseline had two values or for a non-finite value).
  double z() const { return z_; }
  /// The baseline the last value was judged against, and its scale (the z-score's divisor).
  double mean_before() const { return mean_before_; }
  double scale_before() const { return scale_before_; }
  std::uint64_t count() const { return n_; }

 private:
  std::uint64_t n_ = 0;
  double mean_ = 0, dev_ = 0;
  double cusum_pos_ = 0, cusum_neg_ = 0;
  int side_ = 0;
  double z_ = 0, mean_before_ = 0, scale_before_ = 0;
};

}  // namespace cann_debug::plugins::recording
