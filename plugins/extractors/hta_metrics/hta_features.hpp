// HTA results as feature.set/1 features, named with HTA's own names (docs/traces.md lists them).
#pragma once

#include <vector>

#include "cann_debug/messages.hpp"
#include "hta_analyses.hpp"

namespace cann_debug::plugins::hta {

struct MetricsOptions {
  double consecutive_kernel_delay_us = 30;
  double runtime_cutoff_us = 50;
  double launch_delay_cutoff_us = 100;
  bool include_last_profiler_step = true;
  int num_candidates = 2;
  double min_normalized_duration = 0.01;
};

/// Every per-rank feature of one frame.
FeatureSet rank_features(const Frame& f, const MetricsOptions& options);

/// straggler.votes and straggler.is_potential per rank (scope "job").
FeatureSet straggler_features(const StragglerResult& r, const std::vector<Frame>& frames);

}  // namespace cann_debug::plugins::hta
