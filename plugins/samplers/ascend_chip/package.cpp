#include "cann_debug/package.hpp"
#include "ascend_chip.hpp"

CANN_DEBUG_PACKAGE("ascend_chip", "0.1.0", &cann_debug::plugins::ascend_chip_factory());
