// hta_metrics: Holistic Trace Analysis' trace metrics (temporal and kernel-type breakdown, overlap, idle
// time, launch statistics, stragglers) from event.batch/1, as feature.set/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& hta_metrics_factory();

}  // namespace cann_debug::plugins
