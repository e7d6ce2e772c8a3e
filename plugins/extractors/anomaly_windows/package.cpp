#include "cann_debug/package.hpp"
#include "anomaly_windows.hpp"

CANN_DEBUG_PACKAGE("anomaly_windows", "0.1.0", &cann_debug::plugins::anomaly_windows_factory());
