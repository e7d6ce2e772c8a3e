// nvml: a sampler of NVIDIA GPUs through NVML (libnvidia-ml.so.1, opened with dlopen), emitting
// metric.batch/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& nvml_factory();

}  // namespace cann_debug::plugins
