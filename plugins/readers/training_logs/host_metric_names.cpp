#include "host_metric_names.hpp"

#include <fmt/format.h>

#include <map>

namespace cann_debug::plugins::training_logs {

HostMetricName host_metric_name(std::string_view source) {
  static const std::map<std::string, HostMetricName, std::less<>> table = {
      {"cpu.utilization", {"host.cpu.utilization", "ratio"}},
      {"cpu.iowait", {"host.cpu.iowait", "ratio"}},
      {"cpu.steal", {"host.cpu.steal", "ratio"}},
      {"cpu.context_switches_per_s", {"host.context_switches", "count/s"}},
      {"load.runnable", {"host.load.runnable", "count"}},
      {"load.blocked", {"host.load.blocked", "count"}},
      {"mem.used_bytes", {"host.memory.used", "bytes"}},
      {"mem.total_bytes", {"host.memory.total", "bytes"}},
      {"mem.available_bytes", {"host.memory.available", "bytes"}},
      {"proc.threads", {"process.threads", "count"}},
      {"proc.cpu_utilization", {"process.cpu.utilization", "cores"}},
      {"proc.rss_bytes", {"process.memory.rss", "bytes"}},
  };
  if (auto it = table.find(source); it != table.end()) return it->second;
  std::string name(source);
  if (!name.starts_with("host.")) name = fmt::format("host.{}", name);
  return {name, ""};
}

}  // namespace cann_debug::plugins::training_logs
