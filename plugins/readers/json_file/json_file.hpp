// json_file: reads one JSON document (a run's config.json, a settings file) and emits it as one json/1
// message, so extractors can use what the person who launched a run knows about it as extra evidence.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& json_file_factory();

}  // namespace cann_debug::plugins
