// console_capture: a reader of saved npu-smi / hccn_tool console output (metric.batch/1).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& console_capture_factory();

}  // namespace cann_debug::plugins
