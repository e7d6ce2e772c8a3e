// Arranges hta_metrics' feature sets the way Holistic Trace Analysis presents them (docs/stats-json.md):
// per rank, plain figures under their own names (`idle_time_pctg`, `comp_comm_overlap_pctg`, ...), dotted
// names nested (`cuda_kernel_launch_stats.cpu_duration.mean`), and labelled families as table rows
// (`kernel_type_breakdown`: one row per kernel_type with `sum` and `percentage`).
#pragma once

#include <nlohmann/json.hpp>

#include "stats_model.hpp"

namespace cann_debug::cli::stats {

/// {"ranks": {"<r>": {...}}, "job": {...}, "potential_stragglers": [r...], "units": {feature: unit}}, plus
/// "partial"/"error" as in `result`.
nlohmann::json hta_view(const HtaResult& result);

}  // namespace cann_debug::cli::stats
