// metric_series_json: a reader of per-metric training series in JSON (Megatron golden values, MindSpeed-LLM
// baselines); see the manifest's description and README.md.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& metric_series_json_factory();

}  // namespace cann_debug::plugins
