// Prints what `cann-debug stats` collected: a short text report, or one JSON document
// (format "cann-debug.stats/1", docs/stats-json.md).
#pragma once

#include <cstdio>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats_inputs.hpp"
#include "stats_model.hpp"

namespace cann_debug::cli::stats {

nlohmann::json to_json(const std::vector<InputStats>& inputs, const CollectOptions& options, int exit_code);

void print_text(std::FILE* out, const std::vector<InputStats>& inputs);

}  // namespace cann_debug::cli::stats
