// Readings that change slowly or rarely (a temperature, a health state, error counters, a rated clock)
// are taken at most once per `slow_interval`, the others every sample: a sampler at 10 ms then makes its
// vendor calls and file reads for what moves at 10 ms, and does not ask a hundred times a second for a
// value that changes once a minute. The schedule every sampler with such readings shares (the option is
// slow_interval_option, option_specs.hpp; IntervalSampler keeps the schedule for the samplers built on it).
#pragma once

#include <cstdint>

namespace cann_debug::plugins::sampler_support {

/// Says, sample by sample, whether this sample also takes the slow readings: the first sample does, then
/// the first sample at least `slow_interval` after the last one that did (up to half an interval early:
/// samples at 10 ms jitter, and 1 s should mean every 100th, not every 101st).
class SlowReadings {
 public:
  SlowReadings(std::int64_t slow_interval_ns, std::int64_t interval_ns)
      : slow_interval_ns_(slow_interval_ns), early_ns_(interval_ns / 2) {}

  /// Whether the sample taken at `now_ns` takes the slow readings; call once per sample.
  bool due(std::int64_t now_ns) {
    if (slow_interval_ns_ > 0 && taken_ && now_ns - last_ns_ < slow_interval_ns_ - early_ns_) return false;
    taken_ = true;
    last_ns_ = now_ns;
    return true;
  }
  /// The next sample takes them (the sampler started again).
  void restart() { taken_ = false; }

 private:
  std::int64_t slow_interval_ns_;
  std::int64_t early_ns_;
  std::int64_t last_ns_ = 0;
  bool taken_ = false;
};

}  // namespace cann_debug::plugins::sampler_support
