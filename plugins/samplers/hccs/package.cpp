#include "cann_debug/package.hpp"
#include "hccs.hpp"

CANN_DEBUG_PACKAGE("hccs", "0.1.0", &cann_debug::plugins::hccs_factory());
