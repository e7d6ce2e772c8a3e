#include "host_features.hpp"

#include <algorithm>
#include <cmath>

#include "feature_builder.hpp"
#include "sample_stats.hpp"

namespace cann_debug::plugins::inference {
namespace {

std::string label(const Labels& labels, const char* key) {
  const auto it = labels.find(key);
  return it == labels.end() ? std::string() : it->second;
}

// The process a per-process point belongs to: pid, else role, else rank.
std::string process_of(const Labels& labels) {
  for (const char* key : {"pid", "role", "rank"})
    if (auto v = label(labels, key); !v.empty()) return v;
  return "process";
}

EvidenceRef window(const char* series, TimestampNs first, TimestampNs last) {
  EvidenceRef ref;
  ref.kind = "window";
  ref.id = series;
  ref.start_ns = first;
  ref.end_ns = last;
  return ref;
}

}  // namespace

void HostSamples::Series::add(double value, TimestampNs at) {
  if (!std::isfinite(value)) return;
  values.push_back(value);
  if (at == kNoTimestamp) return;
  if (first_ns == kNoTimestamp || at < first_ns) first_ns = at;
  if (last_ns == kNoTimestamp || at > last_ns) last_ns = at;
}

void HostSamples::add(const MetricBatch& batch) {
  for (const MetricPoint& p : batch.points) {
    const TimestampNs at = p.key.timestamp_ns;
    if (p.name == "host.cpu.utilization") {
      const std::string cpu = label(p.labels, "cpu");
      if (cpu.empty() || cpu == "all")
        utilization_.add(p.value, at);
      else
        cpus_.insert(cpu);
    } else if (p.name == "host.load.runnable") {
      runnable_.add(p.value, at);
    } else if (p.name == "process.threads") {
      threads_[process_of(p.labels)].add(p.value, at);
    } else if (p.name == "process.cpu.utilization") {
      process_cpu_[process_of(p.labels)].add(p.value, at);
    }
  }
}

void HostSamples::features(std::optional<double> cores, std::vector<Feature>& out) const {
  FeatureBuilder f(out);
  if (cores && *cores > 0.0)
    f.add("host.cores", *cores, "count",
          {cpus_.empty() ? EvidenceRef{"config", "cpu_count", kNoTimestamp, kNoTimestamp, -1, -1}
                         : window("host.cpu.utilization", utilization_.first_ns, utilization_.last_ns)});
  if (!utilization_.values.empty())
    f.add("cpu.utilization_mean", mean(utilization_.values), "ratio",
          {window("host.cpu.utilization", utilization_.first_ns, utilization_.last_ns)});
  if (!runnable_.values.empty() && cores && *cores > 0.0)
    f.add("cpu.runnable_per_core", mean(runnable_.values) / *cores, "ratio",
          {window("host.load.runnable", runnable_.first_ns, runnable_.last_ns)});

  // The serving process: the one with the most CPU time (the only one in a single-server run).
  const Series* busiest_cpu = nullptr;
  std::string busiest;
  for (const auto& [process, series] : process_cpu_)
    if (busiest_cpu == nullptr || mean(series.values) > mean(busiest_cpu->values)) {
      busiest_cpu = &series;
      busiest = process;
    }
  if (busiest_cpu != nullptr)
    f.add("process.cpu_cores_used", mean(busiest_cpu->values), "cores",
          {window("process.cpu.utilization", busiest_cpu->first_ns, busiest_cpu->last_ns)});

  const auto threads =
      busiest_cpu != nullptr && threads_.count(busiest) ? threads_.find(busiest) : threads_.begin();
  if (threads != threads_.end() && !threads->second.values.empty()) {
    const auto& values = threads->second.values;
    const double most = *std::max_element(values.begin(), values.end());
    const auto ref = window("process.threads", threads->second.first_ns, threads->second.last_ns);
    f.add("process.threads_max", most, "count", {ref});
    if (cores && *cores > 0.0) f.add("process.threads_per_core", most / *cores, "ratio", {ref});
  }
}

}  // namespace cann_debug::plugins::inference
