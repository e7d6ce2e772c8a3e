#include "report_markdown.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "text_escape.hpp"

namespace cann_debug::report {
namespace {

std::string md(const std::string& s) {
  return markdown_escape(s);
}

std::string percent(double p) {
  return std::isfinite(p) ? fmt::format("{:.1f}%", 100.0 * p) : format_number(p);
}

std::string path_text(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& step : path) out += (out.empty() ? "" : " → ") + md(step);
  return out.empty() ? "–" : out;
}

std::string evidence_text(const EvidenceRef& r) {
  std::string out = md(r.kind);
  if (!r.id.empty()) out += " " + md(r.id);
  if (r.first_step >= 0)
    out += r.last_step > r.first_step ? fmt::format(" {}–{}", r.first_step, r.last_step)
                                      : fmt::format(" {}", r.first_step);
  return out;
}

std::string labels_text(const Labels& labels) {
  std::string out;
  for (const auto& [k, v] : labels) out += (out.empty() ? "" : ", ") + md(k) + "=" + md(v);
  return out;
}

void diagnosis_section(std::string& out, const ReportModel& m) {
  if (!m.diagnosis) {
    out += "**No diagnosis arrived** (the analyzer produced none); the sections below show the inputs.\n\n";
    return;
  }
  const Diagnosis& d = *m.diagnosis;
  out += fmt::format("**Scenario:** {} · **Verdict:** {}\n\n", md(d.scenario), verdict_text(d));
  if (const std::string why = undetermined_reason(d); !why.empty()) out += md(why) + "\n\n";
  if (const auto lines = observation_lines(d); !lines.empty()) {
    for (const auto& line : lines) out += "- Observed: " + md(line) + "\n";
    out += "\n";
  }
  out += "## Root causes\n\n| # | root cause | confidence | propagation path |\n| --- | --- | --- | --- |\n";
  for (std::size_t i = 0; i < d.root_causes.size(); ++i) {
    const RootCause& c = d.root_causes[i];
    out += fmt::format("| {} | {} | {} | {} |\n", i + 1, md(c.id), percent(c.confidence), path_text(c.path));
  }
  out += "\n";
  for (const auto& c : d.root_causes) {
    if (c.explanation.empty() && c.evidence.empty()) continue;
    out += fmt::format("### {}\n\n", md(c.id));
    if (!c.explanation.empty()) out += md(c.explanation) + "\n\n";
    for (const auto& r : c.evidence) out += "- " + evidence_text(r) + "\n";
    if (!c.evidence.empty()) out += "\n";
  }
}

void suggestions_section(std::string& out, const ReportModel& m) {
  std::size_t n = 0;
  for (const auto& a : m.advice) n += a.suggestions.size();
  if (n == 0) return;
  out += "## Suggestions\n\n";
  for (const auto& a : m.advice)
    for (const auto& s : a.suggestions) {
      out += fmt::format("### {} (priority {}, for {})\n\n", md(s.title.empty() ? s.id : s.title), s.priority,
                         md(a.for_root_cause));
      if (!s.rationale.empty()) out += md(s.rationale) + "\n\n";
      if (!s.target_metric.empty() || s.expected_improvement != 0.0)
        out += fmt::format("- Expected improvement: {} of {} ({})\n", percent(s.expected_improvement),
                           md(s.target_metric), md(s.improvement_source));
      if (!s.risk.empty()) out += "- Risk: " + md(s.risk) + "\n";
      out += "\n";
      if (!s.config_patch.is_null() && !(s.config_patch.is_object() && s.config_patch.empty()))
        out += "Config patch:\n\n" +
               markdown_code_block(
                   s.config_patch.dump(2, ' ', false, nlohmann::json::error_handler_t::replace), "json");
      for (const auto& [framework, code] : s.code)
        out += md(framework) + ":\n\n" + markdown_code_block(code, "python");
    }
}

void series_section(std::string& out, const ReportModel& m) {
  if (m.charts.empty()) return;
  out +=
      "## Series\n\n| series | curve | x | finite | non-finite | min (at) | max (at) | median | first | last "
      "| anomalies |\n"
      "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |\n";
  for (std::size_t c = 0; c < m.charts.size(); ++c) {
    const SeriesChart& chart = m.charts[c];
    std::string marks;
    for (const auto& a : m.chart_marks[c]) {
      if (marks.size() > 300) {
        marks += " …";
        break;
      }
      marks +=
          (marks.empty() ? "" : ", ") +
          (a.first == a.last ? format_index(a.first) : format_index(a.first) + "–" + format_index(a.last));
    }
    for (const auto& curve : chart.curves) {
      const CurveSummary& s = curve.summary;
      const bool any = s.finite_count > 0;
      out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |\n", md(chart.field),
                         md(curve.label.empty() ? "run" : curve.label), md(chart.x_field), s.finite_count,
                         s.nonfinite_count,
                         any ? format_number(s.min.y) + " (" + format_index(s.min.x) + ")" : "–",
                         any ? format_number(s.max.y) + " (" + format_index(s.max.x) + ")" : "–",
                         any ? format_number(s.median) : "–", any ? format_number(s.first.y) : "–",
                         any ? format_number(s.last.y) : "–", marks.empty() ? "–" : marks);
    }
  }
  out += "\n";
}

void operators_section(std::string& out, const ReportModel& m) {
  if (!m.operators.empty()) {
    out += fmt::format(
        "## Top operators\n\nFrom {} operator events of the trace; share = self time / all operators' "
        "self time.\n\n| operator | calls | total ms | self ms | share |\n| --- | --- | --- | --- | --- |\n",
        m.operator_events);
    for (const auto& r : m.operators)
      out += fmt::format("| {} | {} | {} | {} | {} |\n", md(r.name), r.count, format_number(r.total_ms),
                         format_number(r.self_ms), percent(r.share));
    out += "\n";
  }
  if (!m.operator_features.empty()) {
    out += "## Operator features\n\n| operator | feature | value | unit |\n| --- | --- | --- | --- |\n";
    for (const auto& f : m.operator_features)
      out += fmt::format("| {} | {} | {} | {} |\n", md(f.labels.at("operator")), md(f.name),
                         format_number(f.value), md(f.unit));
    out += "\n";
  }
}

void ranks_section(std::string& out, const ReportModel& m) {
  if (m.ranks.empty()) return;
  out +=
      "## Ranks (median step)\n\n| rank | step ms | compute ms | communication ms | free ms |\n"
      "| --- | --- | --- | --- | --- |\n";
  for (const auto& b : m.ranks)
    out +=
        fmt::format("| {} | {} | {} | {} | {} |\n", md(b.rank), format_number(b.step_ms),
                    format_number(b.compute_ms), format_number(b.communication_ms), format_number(b.free_ms));
  out += "\n";
}

void graph_section(std::string& out, const ReportModel& m) {
  if (!m.graph) return;
  const CausalGraphView& g = *m.graph;
  out += fmt::format("## Causal graph {}\n\n", md(g.name));
  if (!g.path_cause.empty()) out += "Path of " + md(g.path_cause) + " highlighted (on path = yes).\n\n";
  out +=
      "| variable | layer | parents | observed | likeliest (p) | on path |\n| --- | --- | --- | --- | --- | "
      "--- |\n";
  for (const auto& n : g.nodes) {
    std::string parents;
    for (const auto& p : n.parents) parents += (parents.empty() ? "" : ", ") + md(p);
    out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", md(n.name), n.layer,
                       parents.empty() ? "–" : parents, n.observed_state.empty() ? "–" : md(n.observed_state),
                       n.likeliest_state.empty()
                           ? "–"
                           : md(n.likeliest_state) + " (" + format_number(n.likeliest_probability) + ")",
                       n.on_path ? "yes" + (n.path_state.empty() ? "" : " (" + md(n.path_state) + ")") : "");
  }
  out += "\n";
}

void features_section(std::string& out, const ReportModel& m) {
  std::size_t n = 0;
  for (const auto& s : m.feature_sets) n += s.features.size();
  if (n == 0) return;
  out +=
      "## Features\n\n| scope | feature | value | unit | labels | evidence |\n| --- | --- | --- | --- | --- "
      "| --- |\n";
  for (const auto& set : m.feature_sets)
    for (const auto& f : set.features) {
      std::string evidence;
      for (std::size_t i = 0; i < f.evidence.size() && i < 3; ++i)
        evidence += (i ? "; " : "") + evidence_text(f.evidence[i]);
      if (f.evidence.size() > 3) evidence += fmt::format("; … ({} in all)", f.evidence.size());
      out += fmt::format("| {} | {} | {} | {} | {} | {} |\n", md(set.scope), md(f.name),
                         format_number(f.value), md(f.unit), labels_text(f.labels), evidence);
    }
  out += "\n";
}

}  // namespace

std::string markdown_code_block(const std::string& code, const std::string& language) {
  std::size_t longest = 0, run = 0;
  for (char c : code) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<std::size_t>(3, longest + 1), '`');
  std::string out = fence + language + "\n" + code;
  if (!code.empty() && code.back() != '\n') out += "\n";
  return out + fence + "\n\n";
}

std::string report_markdown(const ReportModel& model) {
  std::string out = "# " + md(model.title) + "\n\n";
  diagnosis_section(out, model);
  suggestions_section(out, model);
  series_section(out, model);
  operators_section(out, model);
  ranks_section(out, model);
  graph_section(out, model);
  features_section(out, model);
  return out;
}

}  // namespace cann_debug::report
