// Per-rank compute / communication / free split of the median step (distributed runs), from features.
#pragma once

#include <vector>

#include "cann_debug/messages.hpp"
#include "report_model.hpp"

namespace cann_debug::report {

/// One bar per rank that has a `rank.step_time` feature with a `rank` label (docs/features-distributed.md).
/// free = `rank.outside_model_time` (else `rank.free_time_share` × step): data loading and host work.
/// compute = `rank.forward_time` + `rank.backward_compute_time` + `rank.optimizer_time` (the model's own
/// work, without DDP's waits) and communication = the rest of the step: collective transfers and the time
/// spent waiting in them for the other ranks, whether inside backward or exposed. Without the compute split,
/// communication = `rank.collective_time` (else `rank.exposed_collective_time`) and compute = the rest.
/// Parts are clamped so that they add up to the step. Ranks sorted numerically.
std::vector<RankBar> rank_bars(const std::vector<FeatureSet>& sets);

}  // namespace cann_debug::report
