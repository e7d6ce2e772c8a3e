#include "hardware_series.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace cann_debug::plugins::hardware {
namespace {

// The metric names the conditions read (conditions.cpp); every other point is dropped on arrival.
constexpr std::array<std::string_view, 37> kWanted = {
    // device clocks, utilisation, temperature, power
    "npu.aicore.frequency", "npu.aicore.rated_frequency", "npu.aicore.utilization", "npu.temperature",
    "npu.power", "gpu.clock.sm", "gpu.utilization", "gpu.temperature", "gpu.power",
    // device and host memory
    "npu.hbm.utilization", "npu.hbm.used", "npu.hbm.capacity", "gpu.memory.used", "gpu.memory.total",
    "host.memory.total", "host.memory.available", "ddr.memory.total", "ddr.memory.available",
    // RoCE congestion and traffic
    "roce.port.pfc_sent", "roce.port.pfc_received", "roce.port.mac_pause_sent",
    "roce.port.mac_pause_received", "roce.port.cnp_sent", "roce.port.cnp_received", "roce.port.ecn_marked",
    "roce.port.retransmissions", "roce.port.mac_tx_packets", "roce.port.mac_rx_packets",
    "roce.port.tx_packets", "roce.port.rx_packets",
    // host CPU
    "host.cpu.utilization", "host.cpu.iowait", "host.cpu.steal", "host.load.runnable", "host.cpu.count",
    "process.cpu.utilization", "process.threads"};

bool is_identity_label(const std::string& key) {
  return key != "source_name" && key != "priority";
}

}  // namespace

bool SeriesStore::wanted(std::string_view name) {
  static const std::set<std::string_view, std::less<>> wanted(kWanted.begin(), kWanted.end());
  return wanted.contains(name);
}

std::string Series::display() const {
  std::vector<std::string> parts;
  for (const auto& [k, v] : labels) parts.push_back(fmt::format("{}={}", k, v));
  return parts.empty() ? name : fmt::format("{}{{{}}}", name, fmt::join(parts, ","));
}

std::string Series::subject() const {
  std::vector<std::string> parts;
  for (const char* key : {"node", "device", "port", "link", "cpu", "pid"}) {
    auto it = labels.find(key);
    if (it == labels.end() || (std::string_view(key) == "cpu" && it->second == "all")) continue;
    parts.push_back(fmt::format("{} {}", key, it->second));
  }
  if (parts.empty()) return name.starts_with("host.") || name.starts_with("ddr.") ? "host" : name;
  return fmt::format("{}", fmt::join(parts, ", "));
}

std::optional<double> Series::at(TimestampNs t) const {
  if (samples.empty()) return std::nullopt;
  auto it = std::upper_bound(samples.begin(), samples.end(), t,
                             [](TimestampNs x, const Sample& s) { return x < s.t; });
  return it == samples.begin() ? samples.front().v : std::prev(it)->v;
}

void SeriesStore::add(const MetricBatch& batch) {
  for (const MetricPoint& p : batch.points) {
    if (!wanted(p.name) || !p.key.has_timestamp() || !std::isfinite(p.value)) continue;
    Labels labels;
    for (const auto& [k, v] : p.labels)
      if (is_identity_label(k)) labels.emplace(k, v);
    if (p.key.has_device() && !labels.contains("device"))
      labels.emplace("device", std::to_string(p.key.device));
    auto [at, added] = index_.try_emplace({p.name, labels}, series_.size());
    if (added) series_.push_back(Series{p.name, p.unit, std::move(labels), {}});
    Series& series = series_[at->second];
    if (p.labels.contains("priority")) series.per_priority = true;
    series.samples.push_back({p.key.timestamp_ns, p.value});
  }
}

void SeriesStore::finish() {
  for (Series& s : series_) {
    std::stable_sort(s.samples.begin(), s.samples.end(),
                     [](const Sample& a, const Sample& b) { return a.t < b.t; });
    if (!s.per_priority) continue;
    // Per-priority PFC counters fold into one series: the priorities' points of one sample add up.
    std::vector<Sample> summed;
    for (const Sample& x : s.samples)
      if (!summed.empty() && summed.back().t == x.t)
        summed.back().v += x.v;
      else
        summed.push_back(x);
    s.samples = std::move(summed);
  }
}

std::vector<const Series*> SeriesStore::named(std::string_view name) const {
  std::vector<const Series*> out;
  for (const Series& s : series_)
    if (s.name == name && !s.samples.empty()) out.push_back(&s);
  return out;
}

const Series* SeriesStore::companion(std::string_view name, const Series& like) const {
  for (const Series& s : series_) {
    if (s.name != name || s.samples.empty()) continue;
    bool match = true;
    for (const char* key : {"device", "node", "port", "link"}) {
      auto a = like.labels.find(key), b = s.labels.find(key);
      if (a != like.labels.end() && b != s.labels.end() && a->second != b->second) match = false;
      if (a != like.labels.end() && b == s.labels.end() && std::string_view(key) == "device") match = false;
    }
    if (match) return &s;
  }
  return nullptr;
}

std::optional<std::pair<TimestampNs, TimestampNs>> SeriesStore::span() const {
  std::optional<std::pair<TimestampNs, TimestampNs>> out;
  for (const Series& s : series_) {
    if (s.samples.empty()) continue;
    if (!out) out = {s.samples.front().t, s.samples.back().t};
    out->first = std::min(out->first, s.samples.front().t);
    out->second = std::max(out->second, s.samples.back().t);
  }
  return out;
}

void RunTimeline::add(const RecordBatch& batch) {
  for (const Record& r : batch.records) {
    if (!r.key.has_timestamp()) continue;
    if (r.key.has_step()) steps_.emplace_back(r.key.timestamp_ns, r.key.step_id);
    if (!r.key.request_id.empty()) requests_.push_back(r.key.timestamp_ns);
  }
}

void RunTimeline::finish() {
  std::stable_sort(steps_.begin(), steps_.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  std::sort(requests_.begin(), requests_.end());
}

RunTimeline::Overlap RunTimeline::overlap(TimestampNs start, TimestampNs end) const {
  Overlap o;
  auto first = std::lower_bound(steps_.begin(), steps_.end(), start,
                                [](const auto& s, TimestampNs t) { return s.first < t; });
  auto last = std::upper_bound(steps_.begin(), steps_.end(), end,
                               [](TimestampNs t, const auto& s) { return t < s.first; });
  if (last != steps_.end()) ++last;  // the step that was running at `end`
  for (auto it = first; it != last; ++it) {
    if (o.first_step < 0 || it->second < o.first_step) o.first_step = it->second;
    o.last_step = std::max(o.last_step, it->second);
    ++o.steps;
  }
  o.requests = std::upper_bound(requests_.begin(), requests_.end(), end) -
               std::lower_bound(requests_.begin(), requests_.end(), start);
  return o;
}

}  // namespace cann_debug::plugins::hardware
