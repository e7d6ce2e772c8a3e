#include "cann_debug/package.hpp"
#include "jsonl.hpp"

CANN_DEBUG_PACKAGE("jsonl", "0.1.0", &cann_debug::plugins::jsonl_factory());
