#include "cann_debug/package.hpp"
#include "inference_features.hpp"

CANN_DEBUG_PACKAGE("inference_features", "0.1.0", &cann_debug::plugins::inference_features_factory());
