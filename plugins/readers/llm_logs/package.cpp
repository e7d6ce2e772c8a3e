#include "cann_debug/package.hpp"
#include "metric_series_json.hpp"
#include "train_log.hpp"

CANN_DEBUG_PACKAGE("llm_logs", "0.1.0", &cann_debug::plugins::train_log_factory(),
                   &cann_debug::plugins::metric_series_json_factory());
