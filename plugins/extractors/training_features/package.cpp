#include "cann_debug/package.hpp"
#include "training_features.hpp"

CANN_DEBUG_PACKAGE("training_features", "0.1.0", &cann_debug::plugins::training_features_factory());
