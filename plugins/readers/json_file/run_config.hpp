// run_config: reads a run's configuration file (config.json) and emits it once as run_config/1, the typed
// message every extractor and advisor reads the run's settings from.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& run_config_factory();

}  // namespace cann_debug::plugins
