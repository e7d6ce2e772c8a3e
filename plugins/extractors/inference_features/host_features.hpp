// CPU contention from host metrics (the procfs sampler's / host_metrics reader's names): utilisation,
// runnable threads per core, threads of the serving process per core.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::inference {

class HostSamples {
 public:
  void add(const MetricBatch& batch);

  /// Logical CPUs seen as per-cpu `host.cpu.utilization` series (label cpu != "all"); 0 when none.
  std::size_t cpus_seen() const { return cpus_.size(); }

  /// Appends the host features. `cores`: CPUs of the machine (from the metrics, else the config); the
  /// per-core features are absent without it.
  void features(std::optional<double> cores, std::vector<Feature>& out) const;

 private:
  struct Series {
    std::vector<double> values;
    TimestampNs first_ns = kNoTimestamp;
    TimestampNs last_ns = kNoTimestamp;
    void add(double value, TimestampNs at);
  };
  Series utilization_;                         // host.cpu.utilization, cpu = all
  Series runnable_;                            // host.load.runnable
  std::map<std::string, Series> threads_;      // process.threads per pid
  std::map<std::string, Series> process_cpu_;  // process.cpu.utilization per pid
  std::set<std::string> cpus_;
};

}  // namespace cann_debug::plugins::inference
