#include "cann_debug/package.hpp"
#include "kernel_log.hpp"

CANN_DEBUG_PACKAGE("kernel_log", "0.1.0", &cann_debug::plugins::kernel_log_factory());
