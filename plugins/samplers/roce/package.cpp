#include "cann_debug/package.hpp"
#include "roce.hpp"

CANN_DEBUG_PACKAGE("roce", "0.1.0", &cann_debug::plugins::roce_factory());
