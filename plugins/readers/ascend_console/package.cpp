#include "cann_debug/package.hpp"
#include "ascend_tool_csv.hpp"
#include "console_capture.hpp"

CANN_DEBUG_PACKAGE("ascend_console", "0.1.0", &cann_debug::plugins::console_capture_factory(),
                   &cann_debug::plugins::ascend_tool_csv_factory());
