#include "side_summary.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::plugins::correlate {

std::string series_id(const MetricPoint& p) {
  if (p.labels.empty()) return p.name;
  std::string id = p.name + "{";
  bool first = true;
  for (const auto& [k, v] : p.labels) {
    if (!first) id += ',';
    first = false;
    id += k + "=" + v;
  }
  return id + "}";
}

void SideSummary::seen(TimestampNs t) {
  if (t == kNoTimestamp) return;
  if (first_ns_ == kNoTimestamp || t < first_ns_) first_ns_ = t;
  if (last_ns_ == kNoTimestamp || t > last_ns_) last_ns_ = t;
}

void SideSummary::add(const Record& r, std::size_t max_records) {
  ++items_;
  seen(r.key.timestamp_ns);
  if (records_.size() < max_records)
    records_.push_back(r.fields);
  else
    ++records_dropped_;
}

void SideSummary::add(const MetricPoint& p) {
  ++items_;
  seen(p.key.timestamp_ns);
  Stats& s = metrics_[series_id(p)];
  s.unit = p.unit;
  ++s.count;
  s.last = p.value;
  if (!std::isfinite(p.value)) return;
  if (s.finite == 0) s.min = s.max = p.value;
  ++s.finite;
  s.sum += p.value;
  s.min = std::min(s.min, p.value);
  s.max = std::max(s.max, p.value);
}

void SideSummary::add(const Event& e) {
  ++items_;
  const TimestampNs start = e.start_ns != kNoTimestamp ? e.start_ns : e.key.timestamp_ns;
  seen(start);
  if (start != kNoTimestamp) seen(start + e.duration_ns);
  EventStats& s = events_[e.name];
  ++s.count;
  s.total_duration_ns += e.duration_ns;
}

nlohmann::json SideSummary::to_json() const {
  auto number = [](double v) -> nlohmann::json {
    if (std::isnan(v)) return "nan";
    if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
    return v;
  };
  nlohmann::json j = {{"items", items_}};
  if (first_ns_ != kNoTimestamp) {
    j["first_ns"] = first_ns_;
    j["last_ns"] = last_ns_;
  }
  if (!records_.empty()) j["records"] = records_;
  if (records_dropped_ > 0) j["records_dropped"] = records_dropped_;
  if (!metrics_.empty()) {
    nlohmann::json m = nlohmann::json::object();
    for (const auto& [id, s] : metrics_) {
      m[id] = {{"unit", s.unit}, {"count", s.count}, {"last", number(s.last)}};
      if (s.finite > 0) {
        m[id]["mean"] = s.sum / static_cast<double>(s.finite);
        m[id]["min"] = s.min;
        m[id]["max"] = s.max;
      }
    }
    j["metrics"] = std::move(m);
  }
  if (!events_.empty()) {
    nlohmann::json e = nlohmann::json::object();
    for (const auto& [name, s] : events_)
      e[name] = {{"count", s.count}, {"total_duration_ns", s.total_duration_ns}};
    j["events"] = std::move(e);
  }
  return j;
}

}  // namespace cann_debug::plugins::correlate
