// Everything the distributed extractor has collected by the end of the stream, by rank.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "ascend_communication.hpp"
#include "ascend_step_trace.hpp"
#include "cann_debug/messages.hpp"
#include "rank_trace.hpp"

namespace cann_debug::plugins::distributed {

/// The per-step log rows (metrics.jsonl) of one rank.
struct RankLog {
  std::string source;
  std::vector<double> batch_sizes;
  std::int64_t first_step = -1, last_step = -1;
  TimestampNs first_time_ns = kNoTimestamp, last_time_ns = kNoTimestamp;
  // Tokens routed to each expert of a mixture-of-experts layer, summed over the rows that logged them
  // (moe_tokens_per_expert, tokens_per_expert or DeepSpeed's exp_counts); index = expert. Empty when no row
  // had counts; a row whose list has another length than the first's is left out.
  std::vector<double> expert_tokens;
  void add(std::int64_t step, TimestampNs time_ns, std::optional<double> batch_size);
  /// Adds one row's token counts (a JSON array of non-negative numbers); anything else is ignored.
  void add_expert_tokens(const nlohmann::json& counts);
};

/// The step-log field of a row that holds its per-expert token counts, or nullptr.
const nlohmann::json* expert_token_field(const nlohmann::json& fields);

/// The figures of the run configuration (config.json) that are used as extra evidence.
struct RunConfig {
  std::string source;
  std::optional<double> param_bytes;  // fp32 bytes of all parameters
  std::optional<std::int64_t> world_size;
};

struct RunInputs {
  std::map<std::int64_t, RankTrace> traces;  // by rank
  std::map<std::int64_t, RankLog> logs;      // by rank
  std::optional<RunConfig> config;
  AscendCommunication ascend;  // records of the ascend_communication reader
  AscendStepTrace step_trace;  // records of the ascend_step_trace reader
};

/// The figures of the run's configuration; absent or ill-typed keys are simply absent.
RunConfig read_run_config(const RunConfiguration& run);

}  // namespace cann_debug::plugins::distributed
