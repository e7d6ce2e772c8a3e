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

RunConfig read_run_config(const RunConfiguration& run) {
  RunConfig config;
  config.source = run.source_path;
  if (const auto v = run.number("param_bytes"); v && *v > 0) config.param_bytes = *v;
  if (const auto v = run.integer("world_size"); v && *v > 0) config.world_size = *v;
  return config;
}

}  // namespace cann_debug::plugins::distributed
