#include "cann_debug/package.hpp"
#include "ascend_communication.hpp"
#include "ascend_communication_matrix.hpp"
#include "ascend_kernel_details.hpp"
#include "ascend_memory.hpp"
#include "ascend_op_statistic.hpp"
#include "ascend_profiler_dir.hpp"
#include "ascend_step_trace.hpp"

CANN_DEBUG_PACKAGE("ascend_profiler", "0.1.0", &cann_debug::plugins::ascend_kernel_details_factory(),
                   &cann_debug::plugins::ascend_op_statistic_factory(),
                   &cann_debug::plugins::ascend_step_trace_factory(),
                   &cann_debug::plugins::ascend_communication_factory(),
                   &cann_debug::plugins::ascend_communication_matrix_factory(),
                   &cann_debug::plugins::ascend_profiler_dir_factory(),
                   &cann_debug::plugins::ascend_memory_factory());
