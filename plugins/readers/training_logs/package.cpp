#include "cann_debug/package.hpp"
#include "csv_log.hpp"
#include "hf_trainer_state.hpp"
#include "host_metrics.hpp"

CANN_DEBUG_PACKAGE("training_logs", "0.1.0", &cann_debug::plugins::csv_log_factory(),
                   &cann_debug::plugins::hf_trainer_state_factory(),
                   &cann_debug::plugins::host_metrics_factory());
