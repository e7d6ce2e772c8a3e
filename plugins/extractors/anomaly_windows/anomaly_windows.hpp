// anomaly_windows: sampled series (a recording followed as it is written, or live samplers) -> the anomaly
// windows marked online, one record.batch/1 row (schema cann-debug.anomaly-window/1) as each window closes:
// what `diagnose --follow` and `collect --diagnose` diagnose, and what fusion.json lists.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

/// The schema of the rows it emits.
inline constexpr const char* kAnomalyWindowSchema = "cann-debug.anomaly-window/1";

const cann_debug::ComponentFactory& anomaly_windows_factory();

}  // namespace cann_debug::plugins
