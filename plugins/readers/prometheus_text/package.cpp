#include "cann_debug/package.hpp"
#include "prometheus_text.hpp"

CANN_DEBUG_PACKAGE("prometheus_text", "0.1.0", &cann_debug::plugins::prometheus_text_factory());
