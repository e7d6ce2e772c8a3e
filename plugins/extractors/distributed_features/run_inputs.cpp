#include "run_inputs.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::plugins::distributed {

void RankLog::add(std::int64_t step, TimestampNs time_ns, std::optional<double> batch_size) {
  if (step >= 0) {
    first_step = first_step < 0 ? step : std::min(first_step, step);
    last_step = std::max(last_step, step);
  }
  if (time_ns != kNoTimestamp) {
    first_time_ns = first_time_ns == kNoTimestamp ? time_ns : std::min(first_time_ns, time_ns);
    last_time_ns = last_time_ns == kNoTimestamp ? time_ns : std::max(last_time_ns, time_ns);
  }
  if (batch_size && std::isfinite(*batch_size) && *batch_size > 0) batch_sizes.push_back(*batch_size);
}

void RankLog::add_expert_tokens(const nlohmann::json& counts) {
  if (!counts.is_array() || counts.size() < 2) return;
  std::vector<double> row;
  row.reserve(counts.size());
  for (const auto& c : counts) {
    if (!c.is_number()) return;
    const double v = c.get<double>();
    if (!std::isfinite(v) || v < 0) return;
    row.push_back(v);
  }
  if (expert_tokens.empty()) expert_tokens.assign(row.size(), 0.0);
  if (row.size() != expert_tokens.size()) return;
  for (std::size_t i = 0; i < row.size(); ++i) expert_tokens[i] += row[i];
}

const nlohmann::json* expert_token_field(const nlohmann::json& fields) {
  for (const char* key : {"moe_tokens_per_expert", "tokens_per_expert", "exp_counts"})
    if (const auto it = fields.find(key); it != fields.end() && it->is_array()) return &*it;
  return nullptr;
}

RunConfig read_run_config(const RunConfiguration& run) {
  RunConfig config;
  config.source = run.source_path;
  if (const auto v = run.number("param_bytes"); v && *v > 0) config.param_bytes = *v;
  if (const auto v = run.integer("world_size"); v && *v > 0) config.world_size = *v;
  return config;
}

}  // namespace cann_debug::plugins::distributed
