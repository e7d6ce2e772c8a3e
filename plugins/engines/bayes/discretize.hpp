// discretize extractor: feature.set/1 -> evidence/1 through the discretization specs of a causal graph.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& discretize_factory();

}  // namespace cann_debug::plugins
