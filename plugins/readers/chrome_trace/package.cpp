#include "cann_debug/package.hpp"
#include "chrome_trace.hpp"

CANN_DEBUG_PACKAGE("chrome_trace", "0.1.0", &cann_debug::plugins::chrome_trace_factory());
