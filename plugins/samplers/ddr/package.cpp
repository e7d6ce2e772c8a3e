#include "cann_debug/package.hpp"
#include "ddr.hpp"

CANN_DEBUG_PACKAGE("ddr", "0.1.0", &cann_debug::plugins::ddr_factory());
