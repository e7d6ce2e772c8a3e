#include "cann_debug/package.hpp"
#include "procfs.hpp"

CANN_DEBUG_PACKAGE("procfs", "0.1.0", &cann_debug::plugins::procfs_factory());
