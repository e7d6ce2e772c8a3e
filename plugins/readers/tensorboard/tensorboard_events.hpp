// tensorboard_events: a reader of TensorBoard event files (see the manifest's description and README.md).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& tensorboard_events_factory();

}  // namespace cann_debug::plugins
