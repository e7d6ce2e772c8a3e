#include "cann_debug/package.hpp"
#include "json_file.hpp"

CANN_DEBUG_PACKAGE("json_file", "0.1.0", &cann_debug::plugins::json_file_factory());
