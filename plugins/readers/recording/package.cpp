#include "cann_debug/package.hpp"
#include "recording.hpp"

CANN_DEBUG_PACKAGE("recording", "0.1.0", &cann_debug::plugins::recording_factory());
