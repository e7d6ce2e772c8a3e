// hf_trainer_state: a reader of training and inference logs (see the manifest's description and
// docs/readers.md).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& hf_trainer_state_factory();

}  // namespace cann_debug::plugins
