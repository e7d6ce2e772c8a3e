#include "cann_debug/package.hpp"
#include "nvml.hpp"

CANN_DEBUG_PACKAGE("nvml", "0.1.0", &cann_debug::plugins::nvml_factory());
