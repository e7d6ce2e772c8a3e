// JSON forms of the SDK message types (used by recordings, replay, reports and tests).
#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "cann_debug/messages.hpp"

namespace cann_debug {

using nlohmann::json;

namespace {

// Non-finite numbers have no JSON form; they travel as the strings "nan", "inf", "-inf".
json number(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  return v;
}
double read_number(const json& j) {
  if (j.is_number()) return j.get<double>();
  if (j.is_string()) {
    const auto& s = j.get_ref<const std::string&>();
    if (s == "nan" || s == "NaN") return std::nan("");
    if (s == "inf" || s == "Infinity") return INFINITY;
    if (s == "-inf" || s == "-Infinity") return -INFINITY;
    return std::stod(s);
  }
  throw json::type_error::create(302, "expected a number or \"nan\"/\"inf\"/\"-inf\"", &j);
}

// state -> probability tables (posteriors, soft evidence), with non-finite values as strings.
json table(const std::map<std::string, std::map<std::string, double>>& t) {
  json j = json::object();
  for (const auto& [var, states] : t) {
    json row = json::object();
    for (const auto& [state, v] : states) row[state] = number(v);
    j[var] = std::move(row);
  }
  return j;
}
void read_table(const json& j, const char* key, std::map<std::string, std::map<std::string, double>>& out) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return;
  for (const auto& [var, states] : it->items())
    for (const auto& [state, v] : states.items()) out[var][state] = read_number(v);
}

template <typename T>
void get_if(const json& j, const char* key, T& out) {
  if (auto it = j.find(key); it != j.end() && !it->is_null()) it->get_to(out);
}

}  // namespace

void to_json(json& j, const CorrelationKey& k) {
  j = json::object();
  if (k.has_timestamp()) j["timestamp_ns"] = k.timestamp_ns;
  if (k.has_step()) j["step_id"] = k.step_id;
  if (!k.request_id.empty()) j["request_id"] = k.request_id;
  if (!k.node_id.empty()) j["node_id"] = k.node_id;
  if (k.has_rank()) j["rank"] = k.rank;
  if (k.has_device()) j["device"] = k.device;
}
void from_json(const json& j, CorrelationKey& k) {
  k = {};
  get_if(j, "timestamp_ns", k.timestamp_ns);
  get_if(j, "step_id", k.step_id);
  get_if(j, "request_id", k.request_id);
  get_if(j, "node_id", k.node_id);
  get_if(j, "rank", k.rank);
  get_if(j, "device", k.device);
}

json Envelope::to_json() const {
  json j;
  j["type"] = std::string(type_id_);
  if (!source_.empty()) j["source"] = std::string(source_);
  j["key"] = key_;
  j["payload"] = payload_json();
  return j;
}

// metric.batch/1
void to_json(json& j, const MetricPoint& v) {
  j = {{"name", v.name}, {"unit", v.unit}, {"value", number(v.value)}, {"key", v.key}};
  if (!v.labels.empty()) j["labels"] = v.labels;
}
void from_json(const json& j, MetricPoint& v) {
  v = {};
  j.at("name").get_to(v.name);
  get_if(j, "unit", v.unit);
  v.value = read_number(j.at("value"));
  get_if(j, "key", v.key);
  get_if(j, "labels", v.labels);
}
void to_json(json& j, const MetricBatch& v) {
  j = {{"points", v.points}};
}
void from_json(const json& j, MetricBatch& v) {
  j.at("points").get_to(v.points);
}

// metric.frame/1
MetricBatch to_metric_batch(const MetricFrame& frame) {
  MetricBatch batch;
  if (!frame.schema) return batch;
  const auto& series = frame.schema->series;
  const std::size_t n = std::min(series.size(), frame.values.size());
  batch.points.reserve(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (std::isnan(frame.values[i])) continue;
    const MetricSeries& s = series[i];
    MetricPoint& p =
        batch.points.emplace_back(MetricPoint{s.name, s.unit, frame.values[i], frame.key, s.labels});
    p.key.device = s.device;
  }
  return batch;
}
MetricBatch metric_points_of(const Envelope& envelope) {
  if (envelope.is<MetricFrame>()) return to_metric_batch(envelope.as<MetricFrame>());
  return envelope.as<MetricBatch>();
}
void to_json(json& j, const MetricSeries& v) {
  j = {{"name", v.name}, {"unit", v.unit}};
  if (!v.labels.empty()) j["labels"] = v.labels;
  if (v.device >= 0) j["device"] = v.device;
}
void from_json(const json& j, MetricSeries& v) {
  v = {};
  j.at("name").get_to(v.name);
  get_if(j, "unit", v.unit);
  get_if(j, "labels", v.labels);
  get_if(j, "device", v.device);
}
// The JSON form is self-contained: the series with each frame (a JSON reader has no schema to share).
void to_json(json& j, const MetricFrame& v) {
  json values = json::array();
  for (double x : v.values) values.push_back(number(x));
  j = {{"key", v.key},
       {"series", v.schema ? json(v.schema->series) : json::array()},
       {"values", std::move(values)}};
}
void from_json(const json& j, MetricFrame& v) {
  v = {};
  get_if(j, "key", v.key);
  auto schema = std::make_shared<MetricSchema>();
  j.at("series").get_to(schema->series);
  for (const auto& x : j.at("values")) v.values.push_back(read_number(x));
  if (v.values.size() > schema->series.size())
    throw std::invalid_argument("metric.frame/1: more values than series");
  v.schema = std::move(schema);
}

// event.batch/1
void to_json(json& j, const Event& v) {
  j = {{"name", v.name}, {"cat", v.category}, {"ph", std::string(1, v.phase)}, {"key", v.key}};
  if (v.start_ns != kNoTimestamp) j["start_ns"] = v.start_ns;
  if (v.duration_ns != 0) j["duration_ns"] = v.duration_ns;
  if (v.pid >= 0) j["pid"] = v.pid;
  if (v.tid >= 0) j["tid"] = v.tid;
  if (!v.args.is_null()) j["args"] = v.args;
}
void from_json(const json& j, Event& v) {
  v = {};
  j.at("name").get_to(v.name);
  get_if(j, "cat", v.category);
  std::string ph = j.value("ph", std::string("X"));
  v.phase = ph.empty() ? 'X' : ph[0];
  get_if(j, "key", v.key);
  get_if(j, "start_ns", v.start_ns);
  get_if(j, "duration_ns", v.duration_ns);
  get_if(j, "pid", v.pid);
  get_if(j, "tid", v.tid);
  if (auto it = j.find("args"); it != j.end()) v.args = *it;
}
void to_json(json& j, const EventBatch& v) {
  j = {{"source_path", v.source_path}, {"events", v.events}};
}
void from_json(const json& j, EventBatch& v) {
  v = {};
  get_if(j, "source_path", v.source_path);
  j.at("events").get_to(v.events);
}

// record.batch/1
void to_json(json& j, const Record& v) {
  j = {{"key", v.key}, {"fields", v.fields}};
  if (v.line > 0) j["line"] = v.line;
}
void from_json(const json& j, Record& v) {
  v = {};
  get_if(j, "key", v.key);
  get_if(j, "line", v.line);
  v.fields = j.value("fields", json::object());
}
void to_json(json& j, const RecordBatch& v) {
  j = {{"source_path", v.source_path}, {"records", v.records}};
  if (!v.schema.empty()) j["schema"] = v.schema;
  if (v.partial) {
    j["partial"] = true;
    j["error"] = v.error;
  }
}
void from_json(const json& j, RecordBatch& v) {
  v = {};
  get_if(j, "source_path", v.source_path);
  get_if(j, "schema", v.schema);
  j.at("records").get_to(v.records);
  get_if(j, "partial", v.partial);
  get_if(j, "error", v.error);
}

// feature.set/1
void to_json(json& j, const EvidenceRef& v) {
  j = {{"kind", v.kind}, {"id", v.id}};
  if (v.start_ns != kNoTimestamp) j["start_ns"] = v.start_ns;
  if (v.end_ns != kNoTimestamp) j["end_ns"] = v.end_ns;
  if (v.first_step >= 0) j["first_step"] = v.first_step;
  if (v.last_step >= 0) j["last_step"] = v.last_step;
}
void from_json(const json& j, EvidenceRef& v) {
  v = {};
  get_if(j, "kind", v.kind);
  get_if(j, "id", v.id);
  get_if(j, "start_ns", v.start_ns);
  get_if(j, "end_ns", v.end_ns);
  get_if(j, "first_step", v.first_step);
  get_if(j, "last_step", v.last_step);
}
void to_json(json& j, const Feature& v) {
  j = {{"name", v.name}, {"value", number(v.value)}, {"unit", v.unit}};
  if (!v.evidence.empty()) j["evidence"] = v.evidence;
  if (!v.labels.empty()) j["labels"] = v.labels;
}
void from_json(const json& j, Feature& v) {
  v = {};
  j.at("name").get_to(v.name);
  v.value = read_number(j.at("value"));
  get_if(j, "unit", v.unit);
  get_if(j, "evidence", v.evidence);
  get_if(j, "labels", v.labels);
}
void to_json(json& j, const FeatureSet& v) {
  j = {{"scope", v.scope}, {"features", v.features}};
}
void from_json(const json& j, FeatureSet& v) {
  v = {};
  get_if(j, "scope", v.scope);
  j.at("features").get_to(v.features);
}

// evidence/1
void to_json(json& j, const Evidence& v) {
  j = {{"hard", v.hard}, {"soft", table(v.soft)}};
  if (!v.provenance.empty()) j["provenance"] = v.provenance;
  if (!v.graph.empty()) j["graph"] = v.graph;
}
void from_json(const json& j, Evidence& v) {
  v = {};
  get_if(j, "graph", v.graph);
  get_if(j, "hard", v.hard);
  read_table(j, "soft", v.soft);
  get_if(j, "provenance", v.provenance);
}

// posterior/1
void to_json(json& j, const RankedCause& v) {
  j = {{"id", v.id}, {"probability", number(v.probability)}, {"path", v.path}};
}
void from_json(const json& j, RankedCause& v) {
  v = {};
  j.at("id").get_to(v.id);
  v.probability = read_number(j.at("probability"));
  get_if(j, "path", v.path);
}
void to_json(json& j, const GraphVariable& v) {
  j = {{"name", v.name}, {"states", v.states}, {"parents", v.parents}};
  if (!v.description.empty()) j["description"] = v.description;
  if (!v.feature.empty()) j["feature"] = v.feature;
  if (!v.thresholds.empty()) {
    j["thresholds"] = json::array();
    for (double t : v.thresholds) j["thresholds"].push_back(number(t));
    j["bins"] = v.bins;
  }
}
void from_json(const json& j, GraphVariable& v) {
  v = {};
  j.at("name").get_to(v.name);
  get_if(j, "description", v.description);
  get_if(j, "states", v.states);
  get_if(j, "parents", v.parents);
  get_if(j, "feature", v.feature);
  if (const auto t = j.find("thresholds"); t != j.end() && t->is_array())
    for (const auto& x : *t) v.thresholds.push_back(read_number(x));
  get_if(j, "bins", v.bins);
  if (!v.thresholds.empty() && v.bins.size() != v.thresholds.size() + 1)
    throw std::invalid_argument("graph variable '" + v.name + "': expected " +
                                std::to_string(v.thresholds.size() + 1) + " bins for " +
                                std::to_string(v.thresholds.size()) + " thresholds, got " +
                                std::to_string(v.bins.size()));
}
void to_json(json& j, const Posterior& v) {
  json ranking = json::array();
  for (const auto& [var, score] : v.evidence_ranking)
    ranking.push_back({{"variable", var}, {"score", number(score)}});
  j = {{"graph", v.graph},
       {"marginals", table(v.marginals)},
       {"top_causes", v.top_causes},
       {"evidence_ranking", ranking}};
  if (!v.variables.empty()) j["variables"] = v.variables;
}
void from_json(const json& j, Posterior& v) {
  v = {};
  get_if(j, "graph", v.graph);
  read_table(j, "marginals", v.marginals);
  get_if(j, "top_causes", v.top_causes);
  get_if(j, "variables", v.variables);
  if (auto it = j.find("evidence_ranking"); it != j.end())
    for (const auto& e : *it)
      v.evidence_ranking.emplace_back(e.at("variable").get<std::string>(), read_number(e.at("score")));
}

// diagnosis/1
void to_json(json& j, const RootCause& v) {
  j = {{"id", v.id}, {"confidence", number(v.confidence)}, {"path", v.path}, {"evidence", v.evidence}};
  if (!v.explanation.empty()) j["explanation"] = v.explanation;
}
void from_json(const json& j, RootCause& v) {
  v = {};
  j.at("id").get_to(v.id);
  v.confidence = read_number(j.at("confidence"));
  get_if(j, "path", v.path);
  get_if(j, "evidence", v.evidence);
  get_if(j, "explanation", v.explanation);
}
void to_json(json& j, const Diagnosis& v) {
  j = {{"scenario", v.scenario}, {"healthy", v.healthy}, {"root_causes", v.root_causes}};
  if (!v.details.is_null()) j["details"] = v.details;
}
void from_json(const json& j, Diagnosis& v) {
  v = {};
  get_if(j, "scenario", v.scenario);
  get_if(j, "healthy", v.healthy);
  get_if(j, "root_causes", v.root_causes);
  if (auto it = j.find("details"); it != j.end()) v.details = *it;
}

// advice/1
void to_json(json& j, const Suggestion& v) {
  j = {{"id", v.id},
       {"title", v.title},
       {"rationale", v.rationale},
       {"config_patch", v.config_patch},
       {"code", v.code},
       {"risk", v.risk},
       {"priority", v.priority},
       {"expected_improvement", number(v.expected_improvement)},
       {"improvement_source", v.improvement_source},
       {"target_metric", v.target_metric},
       {"target_better", v.target_better.empty() ? json("lower") : json(v.target_better)},
       {"history", v.history}};
}
void from_json(const json& j, Suggestion& v) {
  v = {};
  j.at("id").get_to(v.id);
  get_if(j, "title", v.title);
  get_if(j, "rationale", v.rationale);
  if (auto it = j.find("config_patch"); it != j.end()) v.config_patch = *it;
  get_if(j, "code", v.code);
  get_if(j, "risk", v.risk);
  get_if(j, "priority", v.priority);
  if (auto it = j.find("expected_improvement"); it != j.end() && !it->is_null())
    v.expected_improvement = read_number(*it);
  get_if(j, "improvement_source", v.improvement_source);
  get_if(j, "target_metric", v.target_metric);
  get_if(j, "target_better", v.target_better);
  if (auto it = j.find("history"); it != j.end()) v.history = *it;
}
void to_json(json& j, const Advice& v) {
  j = {{"for_root_cause", v.for_root_cause}, {"suggestions", v.suggestions}};
}
void from_json(const json& j, Advice& v) {
  v = {};
  get_if(j, "for_root_cause", v.for_root_cause);
  get_if(j, "suggestions", v.suggestions);
}

// run_config/1
void to_json(json& j, const RunConfiguration& v) {
  j = {{"source_path", v.source_path}, {"values", v.values}};
}
void from_json(const json& j, RunConfiguration& v) {
  v = {};
  get_if(j, "source_path", v.source_path);
  v.values = j.value("values", json::object());
}

// json/1
void to_json(json& j, const JsonMessage& v) {
  j = v.value;
}
void from_json(const json& j, JsonMessage& v) {
  v.value = j;
}

}  // namespace cann_debug
