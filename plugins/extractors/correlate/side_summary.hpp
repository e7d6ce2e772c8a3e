// What one input contributed to one join key: counts, per-series statistics of metric points, the
// records' fields (capped), per-name event counts and durations, and the time span.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::correlate {

class SideSummary {
 public:
  void add(const Record& r, std::size_t max_records);
  void add(const MetricPoint& p);
  void add(const Event& e);

  std::size_t items() const { return items_; }
  bool empty() const { return items_ == 0; }
  /// {"items", "first_ns", "last_ns", "records": [...], "records_dropped", "metrics": {"name{k=v,...}":
  /// {"unit", "count", "mean", "min", "max", "last"}}, "events": {name: {"count", "total_duration_ns"}}};
  /// empty parts are left out.
  nlohmann::json to_json() const;

 private:
  struct Stats {
    std::string unit;
    std::size_t count = 0;
    std::size_t finite = 0;
    double sum = 0, min = 0, max = 0, last = 0;
  };
  struct EventStats {
    std::size_t count = 0;
    std::int64_t total_duration_ns = 0;
  };
  void seen(TimestampNs t);

  std::size_t items_ = 0;
  TimestampNs first_ns_ = kNoTimestamp;
  TimestampNs last_ns_ = kNoTimestamp;
  std::vector<nlohmann::json> records_;
  std::size_t records_dropped_ = 0;
  std::map<std::string, Stats> metrics_;
  std::map<std::string, EventStats> events_;
};

/// "name{k1=v1,k2=v2}" (labels sorted; without braces when there are none).
std::string series_id(const MetricPoint& p);

}  // namespace cann_debug::plugins::correlate
