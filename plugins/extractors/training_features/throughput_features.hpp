// Throughput and mixed-precision features of a large-model log: sustained slowdowns of the time per
// iteration (step_time.*) and the dynamic loss scale (loss_scale.*): where the scale fell and how many
// iterations the overflows skipped (docs/features-training.md, "Throughput and loss scale").
#pragma once

#include <vector>

#include "feature_list.hpp"
#include "log_events.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// step_time.median_ms, step_time.slowdown: from iteration_time_ms (or tokens_per_second) of the rows.
void add_throughput_features(const std::vector<LogRow>& rows, FeatureList& out);

/// loss_scale.initial_log2, loss_scale.min_log2 and log.skipped_iteration_fraction (Megatron's skipped
/// counters and DeepSpeed's overflow events over the iterations the log covers, the dynamic scaler's
/// search for its level at the start left out of both).
void add_loss_scale_features(const std::vector<LogRow>& rows, const std::vector<LogEvent>& events,
                             FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
