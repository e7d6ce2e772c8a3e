#include "cann_debug/package.hpp"
#include "hardware_features.hpp"

CANN_DEBUG_PACKAGE("hardware_features", "0.1.0", &cann_debug::plugins::hardware_features_factory());
