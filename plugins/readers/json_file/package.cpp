#include "cann_debug/package.hpp"
#include "json_file.hpp"
#include "run_config.hpp"

CANN_DEBUG_PACKAGE("json_file", "0.2.0", &cann_debug::plugins::json_file_factory(),
                   &cann_debug::plugins::run_config_factory());
