#include "report_json.hpp"

#include <cmath>

#include "text_escape.hpp"

namespace cann_debug::report {
namespace {

using nlohmann::json;

json point_json(const CurvePoint& p) {
  return {{"x", p.x}, {"y", p.y}};
}

json evidence_json(const std::vector<EvidenceRef>& refs) {
  json out = json::array();
  for (const auto& r : refs) out.push_back(json(r));
  return out;
}

json features_json(const std::vector<FeatureSet>& sets) {
  json out = json::array();
  for (const auto& set : sets)
    for (const auto& f : set.features)
      out.push_back({{"scope", set.scope},
                     {"name", f.name},
                     {"value", json_number(f.value)},
                     {"unit", f.unit},
                     {"labels", f.labels},
                     {"evidence", evidence_json(f.evidence)}});
  return out;
}

json suggestions_json(const std::vector<Advice>& advice) {
  json out = json::array();
  for (const auto& a : advice)
    for (const auto& s : a.suggestions) {
      json j = s;
      j["root_cause"] = a.for_root_cause;
      j["expected_improvement"] = json_number(s.expected_improvement);
      out.push_back(std::move(j));
    }
  return out;
}

json series_json(const ReportModel& model) {
  json out = json::array();
  for (std::size_t c = 0; c < model.charts.size(); ++c) {
    const SeriesChart& chart = model.charts[c];
    json curves = json::array();
    for (const auto& curve : chart.curves) {
      const CurveSummary& s = curve.summary;
      json j = {{"label", curve.label}, {"count", s.finite_count}, {"nonfinite_count", s.nonfinite_count}};
      if (s.finite_count > 0) {
        j["first"] = point_json(s.first);
        j["last"] = point_json(s.last);
        j["min"] = point_json(s.min);
        j["max"] = point_json(s.max);
        j["median"] = s.median;
      }
      json points = json::array();
      for (const auto& p : curve.points) points.push_back(json::array({p.x, p.y}));
      j["points"] = std::move(points);
      json nonfinite = json::array();
      for (const auto& p : curve.nonfinite) nonfinite.push_back({{"x", p.x}, {"value", p.text}});
      j["nonfinite"] = std::move(nonfinite);
      curves.push_back(std::move(j));
    }
    json anomalies = json::array();
    for (const auto& m : model.chart_marks[c]) {
      json a = {{"first", m.first}, {"last", m.last}, {"source", m.source}};
      if (m.has_y) a["y"] = m.y;
      anomalies.push_back(std::move(a));
    }
    out.push_back({{"field", chart.field},
                   {"x_field", chart.x_field},
                   {"title", chart.title},
                   {"max_points", model.max_points},
                   {"curves", std::move(curves)},
                   {"anomalies", std::move(anomalies)}});
  }
  return out;
}

json operators_json(const ReportModel& model) {
  json rows = json::array();
  for (const auto& r : model.operators)
    rows.push_back({{"name", r.name},
                    {"count", r.count},
                    {"total_ms", r.total_ms},
                    {"self_ms", r.self_ms},
                    {"share", r.share}});
  json from_features = json::array();
  for (const auto& f : model.operator_features)
    from_features.push_back({{"operator", f.labels.at("operator")},
                             {"name", f.name},
                             {"value", json_number(f.value)},
                             {"unit", f.unit}});
  return {{"events", model.operator_events},
          {"rows", std::move(rows)},
          {"from_features", std::move(from_features)}};
}

json ranks_json(const std::vector<RankBar>& bars) {
  json out = json::array();
  for (const auto& b : bars)
    out.push_back({{"rank", b.rank},
                   {"step_ms", b.step_ms},
                   {"compute_ms", b.compute_ms},
                   {"communication_ms", b.communication_ms},
                   {"free_ms", b.free_ms}});
  return out;
}

json graph_json(const CausalGraphView& g) {
  json nodes = json::array();
  for (const auto& n : g.nodes) {
    json j = {{"name", n.name},
              {"layer", n.layer},
              {"parents", n.parents},
              {"states", n.states},
              {"on_path", n.on_path}};
    if (!n.observed_state.empty()) j["observed_state"] = n.observed_state;
    if (!n.likeliest_state.empty()) {
      j["likeliest_state"] = n.likeliest_state;
      j["likeliest_probability"] = n.likeliest_probability;
    }
    if (!n.path_state.empty()) j["path_state"] = n.path_state;
    nodes.push_back(std::move(j));
  }
  json path_edges = json::array();
  for (const auto& [from, to] : g.path_edges)
    path_edges.push_back(json::array({g.nodes[from].name, g.nodes[to].name}));
  return {{"name", g.name},
          {"path_cause", g.path_cause},
          {"nodes", std::move(nodes)},
          {"path_edges", std::move(path_edges)}};
}

}  // namespace

json json_number(double value) {
  if (std::isfinite(value)) return value;
  return format_number(value);
}

json report_json(const ReportModel& model) {
  json out = {{"format", "cann-debug.report/1"}, {"title", model.title}};
  if (model.diagnosis) {
    out["scenario"] = model.diagnosis->scenario;
    out["healthy"] = model.diagnosis->healthy;
    json d = *model.diagnosis;
    for (auto& cause : d["root_causes"]) cause["confidence"] = json_number(cause["confidence"].get<double>());
    out["diagnosis"] = std::move(d);
  } else {
    out["scenario"] = nullptr;
    out["healthy"] = nullptr;
    out["diagnosis"] = nullptr;
  }
  out["suggestions"] = suggestions_json(model.advice);
  out["features"] = features_json(model.feature_sets);
  out["series"] = series_json(model);
  out["operators"] = operators_json(model);
  out["ranks"] = ranks_json(model.ranks);
  out["causal_graph"] = model.graph ? graph_json(*model.graph) : json(nullptr);
  if (model.posterior) {
    json top = json::array();
    for (const auto& c : model.posterior->top_causes)
      top.push_back({{"id", c.id}, {"probability", json_number(c.probability)}, {"path", c.path}});
    out["posterior"] = {{"graph", model.posterior->graph}, {"top_causes", std::move(top)}};
  } else {
    out["posterior"] = nullptr;
  }
  return out;
}

}  // namespace cann_debug::report
