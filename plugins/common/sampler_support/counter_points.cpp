#include "counter_points.hpp"

namespace cann_debug::plugins::sampler_support {

std::int64_t read_clock_ns(HostServices* host) {
  return host ? host->now_ns() : wall_clock_ns();
}

CounterDelta add_counter_points(std::vector<MetricPoint>& out, CounterTracker& tracker,
                                const std::string& key, std::uint64_t value, unsigned width_bits,
                                const MetricPoint& proto, std::int64_t read_ns) {
  const CounterDelta d =
      tracker.update(key, value, read_ns >= 0 ? read_ns : proto.key.timestamp_ns, width_bits);
  if (!d.has_delta() || d.seconds <= 0) return d;
  MetricPoint rate = proto;
  rate.unit = proto.unit + "/s";
  rate.value = d.rate_per_second();
  out.push_back(std::move(rate));
  MetricPoint delta = proto;
  delta.name = proto.name + ".delta";
  delta.value = static_cast<double>(d.delta);
  out.push_back(std::move(delta));
  return d;
}

bool SkippedReadings::count(const std::string& device, const std::string& source, const std::string& reason) {
  return ++counts_[{device, source, reason}] == 1;
}

void SkippedReadings::add_points(std::vector<MetricPoint>& out, const CorrelationKey& key) const {
  for (const auto& [what, n] : counts_) {
    const auto& [device, source, reason] = what;
    MetricPoint p{"sampler.skipped_readings", "count", static_cast<double>(n), key, {}};
    if (!device.empty()) p.labels["device"] = device;
    p.labels["source_name"] = source;
    p.labels["reason"] = reason;
    if (!key.node_id.empty()) p.labels["node"] = key.node_id;
    out.push_back(std::move(p));
  }
}

std::uint64_t SkippedReadings::total() const {
  std::uint64_t n = 0;
  for (const auto& [what, c] : counts_) n += c;
  return n;
}

}  // namespace cann_debug::plugins::sampler_support
