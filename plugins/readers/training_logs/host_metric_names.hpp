// Names of the case corpus' host_metrics.jsonl (cpu.utilization, mem.used_bytes, proc.threads, ...) in our
// <domain>.<quantity> convention, with their units (shared/cases/FORMAT.md; the procfs sampler's names).
#pragma once

#include <string>
#include <string_view>

namespace cann_debug::plugins::training_logs {

struct HostMetricName {
  std::string name;
  std::string unit;
};

/// cpu.utilization -> host.cpu.utilization (ratio), mem.used_bytes -> host.memory.used (bytes),
/// proc.cpu_utilization -> process.cpu.utilization (cores), ... Unknown names keep their text under
/// "host." (unless they start with it) and an empty unit.
HostMetricName host_metric_name(std::string_view source);

}  // namespace cann_debug::plugins::training_logs
