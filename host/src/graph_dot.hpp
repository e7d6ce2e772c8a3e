// Graphviz rendering of a planned pipeline.
#pragma once

#include <string>

#include "pipeline_plan.hpp"

namespace cann_debug::host {
std::string to_dot(const PipelinePlan& plan);
}  // namespace cann_debug::host
