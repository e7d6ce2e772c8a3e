// The argument dump Megatron-LM, Megatron-DeepSpeed and MindSpeed-LLM print at launch:
//   ------------------------ arguments ------------------------
//     lr .............................................. 0.00015
//     optimizer ....................................... adam
//   -------------------- end of arguments ---------------------
// (each line possibly behind a launcher's "host: " prefix). The train_log reader emits it as one record
// (log_kind "arguments") so that extractors can read the run's optimizer and rates from the log itself.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include <nlohmann/json.hpp>

namespace cann_debug::plugins::llm_logs {

bool is_argument_dump_start(std::string_view text);
bool is_argument_dump_end(std::string_view text);

/// The name and value of one argument line ("  name ....... value"): the value as a JSON number when it
/// reads as one, true/false for True/False, null for None, else the text. nullopt for other lines.
std::optional<std::pair<std::string, nlohmann::json>> parse_argument_line(std::string_view text);

}  // namespace cann_debug::plugins::llm_logs
