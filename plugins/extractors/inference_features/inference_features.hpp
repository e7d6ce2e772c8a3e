// inference_features extractor: request log + serving trace + host metrics + config -> feature.set/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& inference_features_factory();

}  // namespace cann_debug::plugins
