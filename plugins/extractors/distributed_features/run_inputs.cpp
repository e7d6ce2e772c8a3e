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

RunConfig read_run_config(const nlohmann::json& value) {
  RunConfig config;
  const nlohmann::json* doc = &value;
  if (value.is_object() && value.contains("document")) {
    if (value.contains("path") && value["path"].is_string()) config.source = value["path"].get<std::string>();
    doc = &value["document"];
  }
  if (!doc->is_object()) return config;
  if (const auto it = doc->find("param_bytes"); it != doc->end() && it->is_number() && it->get<double>() > 0)
    config.param_bytes = it->get<double>();
  if (const auto it = doc->find("world_size");
      it != doc->end() && it->is_number_integer() && it->get<std::int64_t>() > 0)
    config.world_size = it->get<std::int64_t>();
  return config;
}

}  // namespace cann_debug::plugins::distributed
