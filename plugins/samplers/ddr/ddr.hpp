// ddr: a sampler of host memory bandwidth (resctrl MBM, perf uncore IMC) and usage (/proc/meminfo),
// emitting metric.batch/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& ddr_factory();

}  // namespace cann_debug::plugins
