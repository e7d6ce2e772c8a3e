#include "cann_debug/package.hpp"
#include "rolling_stats.hpp"

CANN_DEBUG_PACKAGE("rolling_stats", "0.1.0", &cann_debug::plugins::rolling_stats_factory());
