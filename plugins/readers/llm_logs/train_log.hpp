// train_log: a reader of training jobs' console logs (see the manifest's description and README.md).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& train_log_factory();

}  // namespace cann_debug::plugins
