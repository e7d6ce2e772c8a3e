#include "cann_debug/package.hpp"
#include "tensorboard_events.hpp"

CANN_DEBUG_PACKAGE("tensorboard", "0.1.0", &cann_debug::plugins::tensorboard_events_factory());
