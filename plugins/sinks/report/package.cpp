#include "cann_debug/package.hpp"
#include "report.hpp"

CANN_DEBUG_PACKAGE("report", "0.1.0", &cann_debug::plugins::report_factory());
