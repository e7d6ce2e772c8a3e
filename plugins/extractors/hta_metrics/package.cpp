#include "cann_debug/package.hpp"
#include "hta_metrics.hpp"

CANN_DEBUG_PACKAGE("hta_metrics", "0.1.0", &cann_debug::plugins::hta_metrics_factory());
