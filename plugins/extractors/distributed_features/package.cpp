#include "cann_debug/package.hpp"
#include "distributed_features.hpp"

CANN_DEBUG_PACKAGE("distributed_features", "0.1.0", &cann_debug::plugins::distributed_features_factory());
