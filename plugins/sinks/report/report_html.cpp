#include "report_html.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "svg_charts.hpp"
#include "text_escape.hpp"

namespace cann_debug::report {
namespace {

std::string h(const std::string& s) {
  return html_escape(s);
}

std::string html_percent(double p) {
  return std::isfinite(p) ? fmt::format("{:.1f}%", 100.0 * p) : format_number(p);
}

constexpr const char* kStyle = R"css(
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0 auto;max-width:1100px;padding:16px;color:#222}
h1{font-size:1.6em;margin-bottom:4px}h2{border-bottom:1px solid #ddd;padding-bottom:4px;margin-top:32px}
table{border-collapse:collapse;margin:8px 0;font-size:.9em}th,td{border:1px solid #ddd;padding:3px 8px;text-align:left;vertical-align:top}
th{background:#f4f4f4}td.num{text-align:right;font-variant-numeric:tabular-nums}
.verdict{display:inline-block;padding:4px 10px;border-radius:4px;font-weight:600}
.verdict.healthy{background:#e6f4ea;color:#1e7b34}.verdict.problem{background:#fdecea;color:#b3261e}
.verdict.undetermined{background:#eef0f3;color:#3c4043}
.bar{display:inline-block;height:10px;background:#1f77b4;vertical-align:middle;margin-right:6px}
pre{background:#f7f7f7;border:1px solid #e3e3e3;padding:8px;overflow-x:auto;font-size:.85em}
.scroll{overflow-x:auto}svg{font-size:11px;max-width:none}
svg .frame{fill:none;stroke:#bbb}svg .curve{fill:none;stroke-width:1.4}svg .tick,svg .axis-label{fill:#555}
svg .anomaly{fill:#d62728;fill-opacity:.85;stroke:#fff}svg .anomaly-range{fill:#d62728;fill-opacity:.12}
svg .nonfinite{stroke:#d62728;stroke-width:2}svg .legend{font-weight:600}
svg .part-compute{fill:#1f77b4}svg .part-communication{fill:#ff7f0e}svg .part-free{fill:#bbb}
svg .edge{stroke:#888;stroke-width:1.2}svg .edge.on-path{stroke:#d62728;stroke-width:3}
svg .node rect{fill:#fff;stroke:#888}svg .node.observed rect{fill:#eef5fb}
svg .node.on-path rect{stroke:#d62728;stroke-width:3}svg .node .name{font-weight:600}svg .node .state{fill:#555}
.muted{color:#777}#feature-filter{margin:4px 0;padding:3px 6px;width:260px}
)css";

constexpr const char* kScript = R"js(
(function () {
  'use strict';
  function setUpFeatureFilter() {
    var input = document.getElementById('feature-filter');
    var table = document.getElementById('features');
    if (!input || !table) return;
    input.addEventListener('input', function () {
      var needle = input.value.toLowerCase();
      var rows = table.tBodies[0].rows;
      for (var i = 0; i < rows.length; ++i)
        rows[i].style.display = rows[i].textContent.toLowerCase().indexOf(needle) >= 0 ? '' : 'none';
    });
  }
  setUpFeatureFilter();
  document.body.setAttribute('data-ready', 'yes');
})();
)js";

std::string html_evidence_text(const EvidenceRef& r) {
  std::string out = h(r.kind);
  if (!r.id.empty()) out += " <code>" + h(r.id) + "</code>";
  if (r.first_step >= 0)
    out += r.last_step > r.first_step ? fmt::format(" {}–{}", r.first_step, r.last_step)
                                      : fmt::format(" {}", r.first_step);
  return out;
}

void html_diagnosis_section(std::string& out, const ReportModel& m) {
  if (!m.diagnosis) {
    out += "<p class=\"verdict problem\">No diagnosis arrived</p>\n";
    return;
  }
  const Diagnosis& d = *m.diagnosis;
  const std::string verdict = verdict_text(d);
  out += fmt::format("<p>Scenario <b>{}</b> · <span class=\"verdict {}\">{}</span></p>\n", h(d.scenario),
                     verdict == "problem found" ? "problem" : verdict, verdict);
  if (const std::string why = undetermined_reason(d); !why.empty())
    out += "<p class=\"undetermined\">" + h(why) + "</p>\n";
  if (const auto lines = observation_lines(d); !lines.empty()) {
    out += "<ul id=\"observations\" class=\"muted\">\n";
    for (const auto& line : lines) out += "<li>Observed: " + h(line) + "</li>\n";
    out += "</ul>\n";
  }
  out +=
      "<h2>Root causes</h2>\n<table id=\"root-causes\"><thead><tr><th>#</th><th>root "
      "cause</th><th>confidence</th>"
      "<th>propagation path</th><th>evidence</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < d.root_causes.size(); ++i) {
    const RootCause& c = d.root_causes[i];
    std::string path;
    for (const auto& p : c.path) path += (path.empty() ? "" : " → ") + ("<code>" + h(p) + "</code>");
    std::string evidence;
    for (const auto& r : c.evidence) evidence += "<div>" + html_evidence_text(r) + "</div>";
    const double width = std::isfinite(c.confidence) ? std::clamp(c.confidence, 0.0, 1.0) * 80 : 0;
    out += fmt::format(
        "<tr class=\"cause\" data-cause=\"{}\"><td>{}</td><td><b>{}</b>{}</td><td><span class=\"bar\" "
        "style=\"width:{:.0f}px\"></span>{}</td><td>{}</td><td>{}</td></tr>\n",
        h(c.id), i + 1, h(c.id),
        c.explanation.empty() ? ""
                              : "<details><summary>explanation</summary><div class=\"muted\">" +
                                    h(c.explanation) + "</div></details>",
        width, html_percent(c.confidence), path.empty() ? "–" : path, evidence.empty() ? "–" : evidence);
  }
  out += "</tbody></table>\n";
}

void html_suggestions_section(std::string& out, const ReportModel& m) {
  std::size_t n = 0;
  for (const auto& a : m.advice) n += a.suggestions.size();
  if (n == 0) return;
  out += "<h2>Suggestions</h2>\n";
  for (const auto& a : m.advice)
    for (const auto& s : a.suggestions) {
      out += fmt::format(
          "<section class=\"suggestion\" data-id=\"{}\"><h3>{} <span class=\"muted\">priority {}, for "
          "{}</span></h3>\n",
          h(s.id), h(s.title.empty() ? s.id : s.title), s.priority, h(a.for_root_cause));
      if (!s.rationale.empty()) out += "<p>" + h(s.rationale) + "</p>\n";
      if (!s.target_metric.empty() || s.expected_improvement != 0.0)
        out += fmt::format("<p>Expected improvement: {} of <code>{}</code> ({})</p>\n",
                           html_percent(s.expected_improvement), h(s.target_metric), h(s.improvement_source));
      if (!s.risk.empty()) out += "<p>Risk: " + h(s.risk) + "</p>\n";
      if (!s.config_patch.is_null() && !(s.config_patch.is_object() && s.config_patch.empty()))
        out += "<p>Config patch:</p><pre>" +
               h(s.config_patch.dump(2, ' ', false, nlohmann::json::error_handler_t::replace)) + "</pre>\n";
      for (const auto& [framework, code] : s.code)
        out += "<p>" + h(framework) + ":</p><pre>" + h(code) + "</pre>\n";
      out += "</section>\n";
    }
}

void charts_section(std::string& out, const ReportModel& m) {
  if (m.charts.empty()) return;
  out +=
      "<h2>Curves</h2>\n<p class=\"muted\">Red dots: anomalous steps or requests named by the diagnosis or "
      "the "
      "features; red bands: anomalous ranges; red crosses on the top edge: non-finite values "
      "(nan/inf).</p>\n";
  for (std::size_t c = 0; c < m.charts.size(); ++c) {
    const SeriesChart& chart = m.charts[c];
    std::size_t finite = 0, nonfinite = 0;
    for (const auto& curve : chart.curves)
      finite += curve.summary.finite_count, nonfinite += curve.summary.nonfinite_count;
    out += fmt::format(
        "<h3>{}</h3><p class=\"muted\">{} finite values, {} non-finite, {} anomaly marks{}</p>\n"
        "<div class=\"scroll\">{}</div>\n",
        h(chart.title), finite, nonfinite, m.chart_marks[c].size(),
        chart.x_field == "row" ? " (x = row number: the log has no index field)" : "",
        line_chart_svg(chart, m.chart_marks[c]));
  }
}

void html_operators_section(std::string& out, const ReportModel& m) {
  if (!m.operators.empty()) {
    out += fmt::format(
        "<h2>Top operators</h2>\n<p class=\"muted\">From {} operator events; share = self time / all "
        "operators' self time.</p>\n<table id=\"operators\"><thead><tr><th>operator</th><th>calls</th>"
        "<th>total ms</th><th>self ms</th><th>share</th></tr></thead><tbody>\n",
        m.operator_events);
    for (const auto& r : m.operators)
      out += fmt::format(
          "<tr><td><code>{}</code></td><td class=\"num\">{}</td><td class=\"num\">{}</td><td "
          "class=\"num\">{}</td><td class=\"num\"><span class=\"bar\" "
          "style=\"width:{:.0f}px\"></span>{}</td></tr>\n",
          h(r.name), r.count, format_number(r.total_ms), format_number(r.self_ms),
          std::clamp(r.share, 0.0, 1.0) * 80, html_percent(r.share));
    out += "</tbody></table>\n";
  }
  if (!m.operator_features.empty()) {
    out +=
        "<h2>Operator features</h2>\n<table "
        "id=\"operator-features\"><thead><tr><th>operator</th><th>feature</th>"
        "<th>value</th><th>unit</th></tr></thead><tbody>\n";
    for (const auto& f : m.operator_features)
      out += fmt::format("<tr><td><code>{}</code></td><td>{}</td><td class=\"num\">{}</td><td>{}</td></tr>\n",
                         h(f.labels.at("operator")), h(f.name), format_number(f.value), h(f.unit));
    out += "</tbody></table>\n";
  }
}

void html_ranks_section(std::string& out, const ReportModel& m) {
  if (m.ranks.empty()) return;
  out +=
      "<h2>Ranks</h2>\n<p class=\"muted\">Median step per rank = compute (forward, backward and optimizer "
      "work) + communication (collective transfers and waiting for the other ranks) + free time outside the "
      "model (data loading, host work). A straggler shows a long free or compute part; the others wait for "
      "it in communication.</p>\n<div class=\"scroll\">" +
      rank_bars_svg(m.ranks) + "</div>\n";
}

void html_graph_section(std::string& out, const ReportModel& m) {
  if (!m.graph) return;
  const CausalGraphView& g = *m.graph;
  out += fmt::format(
      "<h2>Causal graph</h2>\n<p class=\"muted\">Root causes on top, then mechanisms and symptoms; "
      "edges point from cause to effect. {} Shaded nodes are observed.</p>\n<div class=\"scroll\">{}</div>\n",
      g.path_cause.empty() ? std::string("No propagation path to highlight.")
                           : "The path of <b>" + h(g.path_cause) + "</b> is drawn in red.",
      causal_graph_svg(g));
}

void html_features_section(std::string& out, const ReportModel& m) {
  std::size_t n = 0;
  for (const auto& s : m.feature_sets) n += s.features.size();
  if (n == 0) return;
  out +=
      "<h2>Features</h2>\n<input id=\"feature-filter\" type=\"search\" placeholder=\"filter features\" "
      "aria-label=\"filter features\">\n<table "
      "id=\"features\"><thead><tr><th>scope</th><th>feature</th><th>value</th>"
      "<th>unit</th><th>labels</th><th>evidence</th></tr></thead><tbody>\n";
  for (const auto& set : m.feature_sets)
    for (const auto& f : set.features) {
      std::string labels;
      for (const auto& [k, v] : f.labels) labels += (labels.empty() ? "" : ", ") + h(k) + "=" + h(v);
      std::string evidence;
      for (std::size_t i = 0; i < f.evidence.size() && i < 3; ++i)
        evidence += "<div>" + html_evidence_text(f.evidence[i]) + "</div>";
      if (f.evidence.size() > 3)
        evidence += fmt::format("<div class=\"muted\">… {} in all</div>", f.evidence.size());
      out += fmt::format(
          "<tr><td>{}</td><td><code>{}</code></td><td "
          "class=\"num\">{}</td><td>{}</td><td>{}</td><td>{}</td></tr>\n",
          h(set.scope), h(f.name), format_number(f.value), h(f.unit), labels, evidence);
    }
  out += "</tbody></table>\n";
}

}  // namespace

std::string report_html(const ReportModel& model) {
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
      "script-src 'unsafe-inline'; img-src data:\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
      h(model.title) + "</title>\n<style>" + kStyle + "</style></head>\n<body>\n<h1>" + h(model.title) +
      "</h1>\n";
  html_diagnosis_section(out, model);
  html_suggestions_section(out, model);
  charts_section(out, model);
  html_operators_section(out, model);
  html_ranks_section(out, model);
  html_graph_section(out, model);
  html_features_section(out, model);
  out += "<p class=\"muted\">Written by cann-debug's report sink.</p>\n<script>" + std::string(kScript) +
         "</script>\n</body></html>\n";
  return out;
}

}  // namespace cann_debug::report
