#include "cann_debug/package.hpp"
#include "json_sink.hpp"

CANN_DEBUG_PACKAGE("json_sink", "0.1.0", &cann_debug::plugins::json_sink_factory());
