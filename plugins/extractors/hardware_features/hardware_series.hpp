// The sampled hardware series a hardware_features run keeps (only the metric names its conditions read),
// and the run's steps and requests on the same time axis, to name what a window overlapped.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::hardware {

struct Sample {
  TimestampNs t = 0;
  double v = 0.0;
};

/// One series: a metric name and its labels (source_name and priority left out, so a counter read by
/// DCMI or by hccn_tool, or split by priority, is one series), its samples sorted by time.
struct Series {
  std::string name;
  std::string unit;
  Labels labels;
  std::vector<Sample> samples;
  bool per_priority = false;  // points of several priorities: those at the same time add up

  /// "npu.aicore.frequency{device=0}"
  std::string display() const;
  /// The device, port or link the series belongs to, as a user reads it ("device 0", "port eth0", "host").
  std::string subject() const;
  /// Value at time t: the latest sample at or before t (the first sample before the series starts).
  std::optional<double> at(TimestampNs t) const;
};

/// Every kept series, by name and labels. Points of other metric names are dropped as they arrive.
class SeriesStore {
 public:
  /// Keep the metric names for which `wanted(name)` is true.
  void add(const MetricBatch& batch);
  /// Sorts every series by time (stable: equal times keep their arrival order). Call once, before reading.
  void finish();

  std::vector<const Series*> named(std::string_view name) const;
  /// The series `name` whose labels agree with `like` on `device`, `node`, `port` and `link` (labels
  /// that `like` lacks match anything); nullptr when there is none.
  const Series* companion(std::string_view name, const Series& like) const;
  bool empty() const { return series_.empty(); }
  /// Earliest and latest sample time over every kept series.
  std::optional<std::pair<TimestampNs, TimestampNs>> span() const;

  static bool wanted(std::string_view name);

 private:
  std::vector<Series> series_;
  std::map<std::pair<std::string, Labels>, std::size_t> index_;  // (name, labels) -> position in series_
};

/// The steps (rows with a step) and requests (rows with a request id) of the run's logs, by time.
class RunTimeline {
 public:
  void add(const RecordBatch& batch);
  void finish();

  struct Overlap {
    std::int64_t first_step = -1, last_step = -1, steps = 0;
    std::int64_t requests = 0;
  };
  /// The steps whose row time lies in [start, end] (a step's row is written when the step ends, so the
  /// step after `end` is the one that was running then and counts too), and the requests in [start, end].
  Overlap overlap(TimestampNs start, TimestampNs end) const;
  bool has_steps() const { return !steps_.empty(); }

 private:
  std::vector<std::pair<TimestampNs, std::int64_t>> steps_;
  std::vector<TimestampNs> requests_;
};

}  // namespace cann_debug::plugins::hardware
