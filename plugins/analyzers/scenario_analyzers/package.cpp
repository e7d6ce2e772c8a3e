#include "cann_debug/package.hpp"
#include "analyzer_component.hpp"

CANN_DEBUG_PACKAGE("scenario_analyzers", "0.1.0", &cann_debug::plugins::training_analyzer_factory(),
                   &cann_debug::plugins::inference_analyzer_factory(),
                   &cann_debug::plugins::distributed_analyzer_factory());
