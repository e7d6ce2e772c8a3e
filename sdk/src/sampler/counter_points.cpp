#include "cann_debug/sampler/counter_points.hpp"

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
  auto [it, added] = counts_.try_emplace({device, source, reason});
  if (added) it->second.ordinal = static_cast<std::uint32_t>(counts_.size() - 1);
  return ++it->second.n == 1;
}

void SkippedReadings::add_points(std::vector<MetricPoint>& out, const CorrelationKey& key) const {
  for (const auto& [what, count] : counts_) {
    const auto& [device, source, reason] = what;
    MetricPoint p{"sampler.skipped_readings", "count", static_cast<double>(count.n), key, {}};
    if (!device.empty()) p.labels["device"] = device;
    p.labels["source_name"] = source;
    p.labels["reason"] = reason;
    if (!key.node_id.empty()) p.labels["node"] = key.node_id;
    out.push_back(std::move(p));
  }
}

void SkippedReadings::add_to(FrameBuilder& frame) const {
  for (const auto& [what, count] : counts_) {
    // Captured by name, not as structured bindings: clang before 16 cannot capture those.
    const auto& device = std::get<0>(what);
    const auto& source = std::get<1>(what);
    const auto& reason = std::get<2>(what);
    frame.gauge({kSkippedReadingsKey, count.ordinal, 0, 0}, static_cast<double>(count.n), [&] {
      MetricSeries s{"sampler.skipped_readings", "count", {{"source_name", source}, {"reason", reason}}, -1};
      if (!device.empty()) s.labels["device"] = device;
      return s;
    });
  }
}

std::uint64_t SkippedReadings::total() const {
  std::uint64_t n = 0;
  for (const auto& [what, c] : counts_) n += c.n;
  return n;
}

}  // namespace cann_debug::plugins::sampler_support
