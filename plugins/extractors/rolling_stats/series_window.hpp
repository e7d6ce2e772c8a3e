// The state kept per numeric series: the last `window` finite values with their correlation keys, and
// stream-wide counts and the largest |robust z| seen.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "robust_stats.hpp"

namespace cann_debug::plugins::rolling_detail {

struct Observation {
  double value = 0.0;
  std::int64_t step = -1;
  TimestampNs time_ns = kNoTimestamp;
};

/// Steps and times covered by some observations (absent ones ignored).
struct Span {
  std::int64_t first_step = -1, last_step = -1;
  TimestampNs start_ns = kNoTimestamp, end_ns = kNoTimestamp;
  void add(std::int64_t step, TimestampNs time_ns) {
    if (step >= 0) {
      first_step = first_step < 0 ? step : std::min(first_step, step);
      last_step = std::max(last_step, step);
    }
    if (time_ns != kNoTimestamp) {
      start_ns = start_ns == kNoTimestamp ? time_ns : std::min(start_ns, time_ns);
      end_ns = end_ns == kNoTimestamp ? time_ns : std::max(end_ns, time_ns);
    }
  }
  EvidenceRef ref(std::string kind, std::string id) const {
    return {std::move(kind), std::move(id), start_ns, end_ns, first_step, last_step};
  }
};

class SeriesWindow {
 public:
  SeriesWindow(std::string name, std::string unit, Labels labels, std::size_t window)
      : name_(std::move(name)), unit_(std::move(unit)), labels_(std::move(labels)), capacity_(window) {}

  /// Adds one observation; non-finite values are counted but kept out of the window.
  void add(double value, const CorrelationKey& key) {
    stream_.add(key.step_id, key.timestamp_ns);
    if (!std::isfinite(value)) {
      ++nonfinite_;
      return;
    }
    ++count_;
    window_.push_back({value, key.step_id, key.timestamp_ns});
    if (window_.size() > capacity_) window_.pop_front();
    const std::vector<double> values = window_values();
    const double med = median(values);
    last_z_ = robust_z(value, med, mad(values, med));
    if (!has_max_ || std::fabs(last_z_) > max_abs_z_) {
      has_max_ = true;
      max_abs_z_ = std::fabs(last_z_);
      max_at_ = window_.back();
    }
  }

  /// Appends this series' features to `out` (see the manifest description for names and units).
  void features(std::vector<Feature>& out) const {
    const std::string id = display_id();
    const EvidenceRef over_stream = stream_.ref("series", id);
    if (!window_.empty()) {
      const std::vector<double> values = window_values();
      const double med = median(values);
      Span span;
      for (const auto& o : window_) span.add(o.step, o.time_ns);
      const EvidenceRef over_window = span.ref("window", id);
      push(out, "mean", mean(values), unit_, over_window);
      push(out, "std", sample_std(values), unit_, over_window);
      push(out, "median", med, unit_, over_window);
      push(out, "mad", mad(values, med), unit_, over_window);
      push(out, "robust_z", last_z_, "", over_window);
      Span at;
      at.add(max_at_.step, max_at_.time_ns);
      push(out, "max_abs_robust_z", max_abs_z_, "", at.ref(max_at_.step >= 0 ? "step" : "window", id));
    }
    push(out, "count", static_cast<double>(count_), "count", over_stream);
    push(out, "nonfinite_count", static_cast<double>(nonfinite_), "count", over_stream);
  }

  /// "name" or "name{k=v,...}".
  std::string display_id() const {
    std::string id = name_;
    if (labels_.empty()) return id;
    id += '{';
    bool first = true;
    for (const auto& [k, v] : labels_) {
      if (!first) id += ',';
      first = false;
      id += k + "=" + v;
    }
    return id + '}';
  }

 private:
  std::vector<double> window_values() const {
    std::vector<double> v;
    v.reserve(window_.size());
    for (const auto& o : window_) v.push_back(o.value);
    return v;
  }

  void push(std::vector<Feature>& out, const char* stat, double value, std::string unit,
            const EvidenceRef& evidence) const {
    out.push_back({name_ + "." + stat, value, std::move(unit), {evidence}, labels_});
  }

  std::string name_;
  std::string unit_;
  Labels labels_;
  std::size_t capacity_;
  std::deque<Observation> window_;
  std::uint64_t count_ = 0;
  std::uint64_t nonfinite_ = 0;
  double last_z_ = 0.0;
  bool has_max_ = false;
  double max_abs_z_ = 0.0;
  Observation max_at_;
  Span stream_;
};

}  // namespace cann_debug::plugins::rolling_detail
