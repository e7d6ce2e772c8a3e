// The three scenario analyzers share one component: posterior/1 (+ feature.set/1, evidence/1) in,
// one diagnosis/1 out at end of stream. They differ in their scenario name and their details.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& training_analyzer_factory();
const cann_debug::ComponentFactory& inference_analyzer_factory();
const cann_debug::ComponentFactory& distributed_analyzer_factory();

}  // namespace cann_debug::plugins
