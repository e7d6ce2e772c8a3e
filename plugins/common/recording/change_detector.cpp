#include "recording/change_detector.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::plugins::recording {

SeriesBaseline::Verdict SeriesBaseline::judge(double x, const DetectorOptions& o) {
  if (!std::isfinite(x)) {
    side_ = 0;
    z_ = 0;
    return Verdict::kOutlier;  // NaN/Inf readings are always worth keeping
  }
  ++n_;
  mean_before_ = mean_;
  if (n_ == 1) {
    mean_ = mean_before_ = x;
    dev_ = 0;
    z_ = 0;
    scale_before_ = 0;
    return Verdict::kNormal;
  }
  const double scale = std::max({1.2533 * dev_, o.rel_floor * std::abs(mean_), 1e-12});
  const double z = (x - mean_) / scale;
  z_ = z;
  scale_before_ = scale;
  side_ = z > 0 ? 1 : -1;
  const bool alarm = n_ > o.warmup && std::abs(z) >= o.z_threshold;
  if (n_ > o.warmup) {
    const double zc = std::clamp(z, -o.cusum_z_clip, o.cusum_z_clip);
    cusum_pos_ = std::max(0.0, cusum_pos_ + zc - o.cusum_k);
    cusum_neg_ = std::max(0.0, cusum_neg_ - zc - o.cusum_k);
    if (cusum_pos_ > o.cusum_h || cusum_neg_ > o.cusum_h) {
      mean_ = x;  // a new level: restart the baseline there
      cusum_pos_ = cusum_neg_ = 0;
      if (o.restart_on_change) {
        n_ = 1;
        dev_ = 0;
      }
      return Verdict::kChange;
    }
  }
  // Huber update: the mean follows the value clipped to mean +- 3 scale, so one spike moves the baseline
  // little; the deviation follows it clipped at the alarm threshold, so a series whose noise has heavy
  // tails (counter deltas under sampling jitter) widens its own scale instead of alarming on every tail.
  const double a = n_ <= o.warmup ? 1.0 / static_cast<double>(n_) : o.alpha;
  dev_ += a * (std::min(std::abs(x - mean_), o.z_threshold * scale) - dev_);
  mean_ += a * (std::clamp(x, mean_ - 3 * scale, mean_ + 3 * scale) - mean_);
  return alarm ? Verdict::kOutlier : Verdict::kNormal;
}

}  // namespace cann_debug::plugins::recording
