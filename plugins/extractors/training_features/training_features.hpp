// training_features: per-run features of a training log (loss, gradients, clipping, layers, learning rate,
// epoch periodicity) -> feature.set/1, the evidence of the training causal graph.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& training_features_factory();

}  // namespace cann_debug::plugins
