#include "cann_debug/package.hpp"
#include "correlate.hpp"

CANN_DEBUG_PACKAGE("correlate", "0.1.0", &cann_debug::plugins::correlate_factory());
