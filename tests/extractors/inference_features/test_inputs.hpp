// Builders of the extractor's input messages for the tests.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::inference_test {

struct RequestRow {
  double latency_ms;
  double completion_s;
  int batch_size = 1;
};

inline Envelope request_records(const std::vector<RequestRow>& rows,
                                const std::string& path = "metrics.jsonl") {
  RecordBatch b;
  b.source_path = path;
  for (std::size_t i = 0; i < rows.size(); ++i) {
    Record r;
    r.line = static_cast<std::int64_t>(i) + 1;
    r.key.request_id = std::to_string(i);
    r.fields = {{"request_id", i},
                {"time", rows[i].completion_s},
                {"latency_ms", rows[i].latency_ms},
                {"batch_size", rows[i].batch_size}};
    b.records.push_back(std::move(r));
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

/// A complete slice on thread 1 of process 7, times in microseconds like the legacy exporter.
inline Event slice(const std::string& name, std::int64_t ts_us, std::int64_t dur_us) {
  Event e;
  e.name = name;
  e.phase = 'X';
  e.start_ns = ts_us * 1000;
  e.duration_ns = dur_us * 1000;
  e.pid = 7;
  e.tid = 1;
  return e;
}

inline Envelope events(std::vector<Event> list) {
  EventBatch b;
  b.source_path = "trace.json";
  b.events = std::move(list);
  return Envelope::make(CorrelationKey{}, std::move(b));
}

inline MetricPoint point(const std::string& name, double value, double time_s, Labels labels = {}) {
  MetricPoint p;
  p.name = name;
  p.value = value;
  p.key.timestamp_ns = seconds_to_ns(time_s);
  p.labels = std::move(labels);
  return p;
}

inline Envelope metrics(std::vector<MetricPoint> points) {
  MetricBatch b;
  b.points = std::move(points);
  return Envelope::make(CorrelationKey{}, std::move(b));
}

inline Envelope config(nlohmann::json document, const std::string& path = "config.json") {
  return Envelope::make(CorrelationKey{}, RunConfiguration{path, std::move(document)});
}

inline std::optional<Feature> find(const FeatureSet& set, const std::string& name) {
  for (const auto& f : set.features)
    if (f.name == name) return f;
  return std::nullopt;
}

}  // namespace cann_debug::plugins::inference_test
