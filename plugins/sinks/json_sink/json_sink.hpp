// json_sink: writes every message it receives as JSON (JSON lines, or one JSON array) to a file.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& json_sink_factory();

}  // namespace cann_debug::plugins
