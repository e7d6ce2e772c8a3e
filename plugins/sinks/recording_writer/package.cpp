#include "cann_debug/package.hpp"
#include "recording_writer.hpp"

CANN_DEBUG_PACKAGE("recording_writer", "0.1.0", &cann_debug::plugins::recording_writer_factory());
