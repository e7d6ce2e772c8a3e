#include "cann_debug/package.hpp"
#include "kb_advisor.hpp"

CANN_DEBUG_PACKAGE("kb_advisor", "0.1.0", &cann_debug::plugins::kb_advisor_factory());
