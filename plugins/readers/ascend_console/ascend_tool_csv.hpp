// ascend_tool_csv: a reader of CSV series sampled from npu-smi and hccn_tool (metric.batch/1).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& ascend_tool_csv_factory();

}  // namespace cann_debug::plugins
