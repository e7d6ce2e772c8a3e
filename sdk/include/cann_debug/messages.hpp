// The message types of the core pipeline. Each is a plain struct with a versioned id and a JSON form
// (to_json/from_json, defined in the SDK library). Within a major version changes are additive only.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/message.hpp"

namespace cann_debug {

using Labels = std::map<std::string, std::string>;

// ---- metric.batch/1: samples of named numeric series --------------------------------------------------
struct MetricPoint {
  std::string name;  // <domain>.<quantity>[.<qualifier>], e.g. "host.cpu.utilization"
  std::string unit;  // e.g. "ratio", "bytes", "bytes/s", "count/s", "celsius"
  double value = 0.0;
  CorrelationKey key;  // key.timestamp_ns is the sample time
  Labels labels;       // node, device, link, port, rank, cpu, ... and the vendor's own counter name
};
struct MetricBatch {
  static constexpr std::string_view type_id = "metric.batch/1";
  std::vector<MetricPoint> points;
};

// ---- metric.frame/1: one sample of many series, the series described once ------------------------------
// What a live sampler emits: the names, units and labels of its series travel once, in a shared schema,
// and each sample is a vector of numbers. A consumer that accepts only metric.batch/1 still works: the
// host expands a frame into a batch (to_metric_batch) on such a link.
struct MetricSeries {
  std::string name;  // as MetricPoint::name
  std::string unit;
  Labels labels;
  std::int32_t device = -1;  // the points' key.device
};
/// Immutable once shared. A producer that finds a new series makes a new schema (the old series first,
/// in the same order), so a consumer can cache what it derived from a schema by its address.
struct MetricSchema {
  std::vector<MetricSeries> series;
};
struct MetricFrame {
  static constexpr std::string_view type_id = "metric.frame/1";
  std::shared_ptr<const MetricSchema> schema;
  CorrelationKey key;          // key.timestamp_ns is the sample time of every value; key.node_id the node
  std::vector<double> values;  // values[i] is schema->series[i]; NaN = no reading this time; may be shorter
};
/// The frame's points (NaN values left out), each with the frame's key and its series' device.
MetricBatch to_metric_batch(const MetricFrame& frame);
/// The points of a metric.batch/1 or metric.frame/1 envelope; MessageTypeError for any other type.
MetricBatch metric_points_of(const Envelope& envelope);

// ---- event.batch/1: timed events (trace slices, instants, counters) ----------------------------------
struct Event {
  std::string name;
  std::string category;  // e.g. "kernel", "cpu_op", "gpu_memcpy", "user_annotation"
  char phase = 'X';      // Chrome trace phase: X (complete), i (instant), C (counter), ...
  TimestampNs start_ns = kNoTimestamp;
  std::int64_t duration_ns = 0;
  CorrelationKey key;
  std::int64_t pid = -1;
  std::int64_t tid = -1;  // thread, or stream for device events
  nlohmann::json args;    // the source's own arguments, kept as they were
};
struct EventBatch {
  static constexpr std::string_view type_id = "event.batch/1";
  std::string source_path;
  std::vector<Event> events;
};

// ---- record.batch/1: rows of a log (one object per step, request, epoch, ...) ------------------------
struct Record {
  CorrelationKey key;
  std::int64_t line = 0;  // 1-based line (or row) in the source file; 0 if not from a file
  nlohmann::json fields;  // every field of the row, unknown ones included
};
struct RecordBatch {
  static constexpr std::string_view type_id = "record.batch/1";
  std::string source_path;
  /// What the rows are, `<producer>.<table>/<version>` (e.g. "ascend.communication/1"; docs/readers.md
  /// lists them), so consumers dispatch on it instead of on field names; "" = rows of a generic log.
  std::string schema;
  std::vector<Record> records;
  /// True when the source ended in an error: these records are good, but later ones were not read.
  bool partial = false;
  std::string error;  // what stopped the reader, with file and line or byte offset
};

// ---- feature.set/1: named numbers with a unit and references to their evidence -----------------------
struct EvidenceRef {
  std::string kind;  // "step", "steps", "operator", "rank", "link", "window", "series", "request"
  std::string id;    // e.g. operator name, "rank3", "hccs0->1", series name
  TimestampNs start_ns = kNoTimestamp;
  TimestampNs end_ns = kNoTimestamp;
  std::int64_t first_step = -1;
  std::int64_t last_step = -1;
};
struct Feature {
  std::string name;  // e.g. "grad_norm.clip_ratio", "loss.robust_z"
  double value = 0.0;
  std::string unit;
  std::vector<EvidenceRef> evidence;
  Labels labels;
};
struct FeatureSet {
  static constexpr std::string_view type_id = "feature.set/1";
  std::string scope;  // what the set describes: a run, a rank, a window
  std::vector<Feature> features;
};

// ---- evidence/1: observations of causal-graph variables ----------------------------------------------
struct Evidence {
  static constexpr std::string_view type_id = "evidence/1";
  /// The causal graph file whose variables these are (set by a discretizer); an engine with no `graph`
  /// option of its own loads this one, so a pipeline names its graph once. "" = not said.
  std::string graph;
  std::map<std::string, std::string> hard;                     // variable -> observed state
  std::map<std::string, std::map<std::string, double>> soft;   // variable -> state -> likelihood
  std::map<std::string, std::vector<EvidenceRef>> provenance;  // variable -> evidence it came from
};

// ---- posterior/1: posterior marginals and ranked root causes ------------------------------------------
struct RankedCause {
  std::string id;
  double probability = 0.0;
  std::vector<std::string> path;  // most probable propagation path: cause -> ... -> symptom
};
/// One variable of the causal graph a posterior answers on, as components downstream of the engine need it
/// (analyzers explaining a cause, reports drawing the graph, `infer` listing evidence): no tables.
struct GraphVariable {
  std::string name;
  std::string description;
  std::vector<std::string> states;
  std::vector<std::string> parents;  // edges parent -> this variable
  std::string feature;               // the feature its discretization reads; "" = not observed through one
  std::vector<double> thresholds;    // that discretization's thresholds, ascending (empty = none)
  std::vector<std::string> bins;     // the state of each bin: thresholds.size() + 1 entries, bin i holds
                                     // thresholds[i-1] <= x < thresholds[i]
};
struct Posterior {
  static constexpr std::string_view type_id = "posterior/1";
  std::string graph;                     // the graph's display name
  std::vector<GraphVariable> variables;  // the graph's variables in file order (empty = not said)
  std::map<std::string, std::map<std::string, double>> marginals;
  std::vector<RankedCause> top_causes;
  std::vector<std::pair<std::string, double>> evidence_ranking;  // variable -> influence (e.g. |log LR|)
};

// ---- diagnosis/1: what is wrong, how sure, and why ------------------------------------------------------
struct RootCause {
  std::string id;
  double confidence = 0.0;
  std::vector<std::string> path;
  std::vector<EvidenceRef> evidence;
  std::string explanation;
};
struct Diagnosis {
  static constexpr std::string_view type_id = "diagnosis/1";
  std::string scenario;  // "training", "inference", "distributed"
  bool healthy = true;
  std::vector<RootCause> root_causes;  // sorted by confidence, highest first
  nlohmann::json details;              // scenario-specific figures
};

// ---- advice/1: executable suggestions -------------------------------------------------------------------
struct Suggestion {
  std::string id;
  std::string title;
  std::string rationale;
  nlohmann::json config_patch;
  std::map<std::string, std::string> code;  // framework -> snippet ("pytorch", "torch_npu", "mindspore")
  std::string risk;
  int priority = 0;  // 1 = do first
  double expected_improvement = 0.0;
  std::string improvement_source;  // "prior" or "history"
  std::string target_metric;
  std::string target_better;  // which way target_metric improves: "lower", "higher", "closer_to_zero"
  /// What the optimize loop measured of it (kb-outcomes/1): {trials, successes, success_probability,
  /// mean_gain, same_context, context}; null when it was never validated.
  nlohmann::json history;
};
struct Advice {
  static constexpr std::string_view type_id = "advice/1";
  std::string for_root_cause;
  std::vector<Suggestion> suggestions;
};

// ---- run_config/1: how the run was configured ---------------------------------------------------------
// The run's own configuration (config.json of a run folder: lr, batch_size, optimizer{name, lr},
// clip_threshold, world_size, ...), as the run wrote it. Consumers read the keys they know through the
// typed lookups, which take dotted paths ("optimizer.lr") and answer nothing for a missing key or a value
// of another type, so every consumer reads a key the same way.
struct RunConfiguration {
  static constexpr std::string_view type_id = "run_config/1";
  std::string source_path;                           // the file it came from ("" = not from a file)
  nlohmann::json values = nlohmann::json::object();  // the document

  const nlohmann::json* find(std::string_view dotted_key) const;
  /// A finite number (JSON number, or a bool as 0/1: no).
  std::optional<double> number(std::string_view dotted_key) const;
  /// An integer (a JSON integer, or a number with no fraction).
  std::optional<std::int64_t> integer(std::string_view dotted_key) const;
  std::optional<std::string> text(std::string_view dotted_key) const;
  std::optional<bool> flag(std::string_view dotted_key) const;
};

// ---- json/1: the escape hatch --------------------------------------------------------------------------
struct JsonMessage {
  static constexpr std::string_view type_id = "json/1";
  nlohmann::json value;
};

#define CANN_DEBUG_DECLARE_JSON(T)             \
  void to_json(nlohmann::json& j, const T& v); \
  void from_json(const nlohmann::json& j, T& v);
CANN_DEBUG_DECLARE_JSON(MetricPoint)
CANN_DEBUG_DECLARE_JSON(MetricBatch)
CANN_DEBUG_DECLARE_JSON(MetricSeries)
CANN_DEBUG_DECLARE_JSON(MetricFrame)
CANN_DEBUG_DECLARE_JSON(Event)
CANN_DEBUG_DECLARE_JSON(EventBatch)
CANN_DEBUG_DECLARE_JSON(Record)
CANN_DEBUG_DECLARE_JSON(RecordBatch)
CANN_DEBUG_DECLARE_JSON(EvidenceRef)
CANN_DEBUG_DECLARE_JSON(Feature)
CANN_DEBUG_DECLARE_JSON(FeatureSet)
CANN_DEBUG_DECLARE_JSON(Evidence)
CANN_DEBUG_DECLARE_JSON(RankedCause)
CANN_DEBUG_DECLARE_JSON(GraphVariable)
CANN_DEBUG_DECLARE_JSON(Posterior)
CANN_DEBUG_DECLARE_JSON(RootCause)
CANN_DEBUG_DECLARE_JSON(Diagnosis)
CANN_DEBUG_DECLARE_JSON(Suggestion)
CANN_DEBUG_DECLARE_JSON(Advice)
CANN_DEBUG_DECLARE_JSON(RunConfiguration)
CANN_DEBUG_DECLARE_JSON(JsonMessage)
#undef CANN_DEBUG_DECLARE_JSON

/// The ids of the SDK's own message types, for listings and checks.
inline constexpr std::string_view kCoreMessageTypes[] = {
    MetricBatch::type_id, MetricFrame::type_id,      EventBatch::type_id, RecordBatch::type_id,
    FeatureSet::type_id,  Evidence::type_id,         Posterior::type_id,  Diagnosis::type_id,
    Advice::type_id,      RunConfiguration::type_id, JsonMessage::type_id};

}  // namespace cann_debug
