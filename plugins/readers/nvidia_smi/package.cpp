#include "cann_debug/package.hpp"
#include "nvidia_smi.hpp"

CANN_DEBUG_PACKAGE("nvidia_smi", "0.1.0", &cann_debug::plugins::nvidia_smi_factory());
