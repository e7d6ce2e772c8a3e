#include "svg_charts.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "text_escape.hpp"

namespace cann_debug::report {
namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#2ca02c", "#9467bd", "#8c564b",
                                    "#e377c2", "#17becf", "#bcbd22"};

/// Cuts a label to at most `max_bytes` bytes without splitting a UTF-8 sequence; adds "…" when cut.
std::string shorten(const std::string& s, std::size_t max_bytes) {
  if (s.size() <= max_bytes) return s;
  std::size_t cut = max_bytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  return s.substr(0, cut) + "\u2026";
}

struct Axis {
  double lo = 0.0;
  double hi = 1.0;
  bool log = false;
  double pixel_lo = 0.0;
  double pixel_hi = 1.0;
  double map(double v) const {
    const double a = log ? std::log10(lo) : lo;
    const double b = log ? std::log10(hi) : hi;
    const double t = ((log ? std::log10(std::max(v, lo)) : v) - a) / (b - a);
    return pixel_lo + t * (pixel_hi - pixel_lo);
  }
  double value_at(double t) const {
    return log ? std::pow(10.0, std::log10(lo) + t * (std::log10(hi) - std::log10(lo))) : lo + t * (hi - lo);
  }
};

void widen_if_flat(Axis& a) {
  if (a.hi > a.lo) return;
  const double pad = a.lo == 0 ? 1.0 : std::abs(a.lo) * 0.05;
  a.lo -= pad;
  a.hi += pad;
  if (a.log && a.lo <= 0) a.log = false;
}

}  // namespace

std::string line_chart_svg(const SeriesChart& chart, const std::vector<AnomalyMark>& marks) {
  constexpr double kW = 760, kH = 280, kLeft = 70, kRight = 16, kTop = 14, kBottom = 40;
  Axis x{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), false, kLeft,
         kW - kRight};
  Axis y{std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(), false,
         kH - kBottom, kTop};
  for (const auto& c : chart.curves) {
    for (const auto& p : c.points) {
      x.lo = std::min(x.lo, p.x), x.hi = std::max(x.hi, p.x);
      y.lo = std::min(y.lo, p.y), y.hi = std::max(y.hi, p.y);
    }
    for (const auto& p : c.nonfinite) x.lo = std::min(x.lo, p.x), x.hi = std::max(x.hi, p.x);
  }
  for (const auto& m : marks) x.lo = std::min(x.lo, m.first), x.hi = std::max(x.hi, m.last);
  if (!(x.lo <= x.hi)) x.lo = 0, x.hi = 1;
  if (!(y.lo <= y.hi)) y.lo = 0, y.hi = 1;
  y.log = y.lo > 0 && y.hi / y.lo >= 1000.0;
  widen_if_flat(x);
  widen_if_flat(y);

  std::string svg = fmt::format(
      "<svg class=\"chart\" data-series=\"{0}\" viewBox=\"0 0 {1} {2}\" width=\"{1}\" height=\"{2}\" "
      "role=\"img\" xmlns=\"http://www.w3.org/2000/svg\"><title>{3}</title>\n",
      html_escape(chart.field), kW, kH, html_escape(chart.title));
  svg += fmt::format("<rect class=\"frame\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"/>\n", kLeft, kTop,
                     kW - kLeft - kRight, kH - kTop - kBottom);
  for (int i = 0; i <= 4; ++i) {
    const double t = i / 4.0;
    const double yv = y.value_at(t), xv = x.value_at(t);
    svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n",
                       kLeft - 4, y.map(yv) + 4, html_escape(format_number(yv)));
    svg += fmt::format("<text class=\"tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       x.map(xv), kH - kBottom + 16, html_escape(format_index(std::round(xv))));
  }
  svg +=
      fmt::format("<text class=\"axis-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}{}</text>\n",
                  (kLeft + kW - kRight) / 2, kH - 6, html_escape(chart.x_field), y.log ? " (log y)" : "");

  for (const auto& m : marks) {
    if (m.first == m.last) continue;
    const double x0 = x.map(m.first), x1 = std::max(x.map(m.last), x0 + 2.0);
    svg += fmt::format(
        "<rect class=\"anomaly-range\" data-first=\"{}\" data-last=\"{}\" x=\"{:.1f}\" y=\"{}\" "
        "width=\"{:.1f}\" "
        "height=\"{}\"><title>{} {}-{}: {}</title></rect>\n",
        format_index(m.first), format_index(m.last), x0, kTop, x1 - x0, kH - kTop - kBottom,
        html_escape(chart.x_field), format_index(m.first), format_index(m.last), html_escape(m.source));
  }
  for (std::size_t i = 0; i < chart.curves.size(); ++i) {
    const Curve& c = chart.curves[i];
    std::string points;
    points.reserve(c.points.size() * 14);
    for (const auto& p : c.points) points += fmt::format("{:.1f},{:.1f} ", x.map(p.x), y.map(p.y));
    if (!points.empty()) points.pop_back();
    svg += fmt::format(
        "<polyline class=\"curve\" data-series=\"{}\" data-label=\"{}\" stroke=\"{}\" points=\"{}\"/>\n",
        html_escape(chart.field), html_escape(c.label), kPalette[i % std::size(kPalette)], points);
    for (const auto& p : c.nonfinite) {
      const double px = x.map(p.x);
      svg += fmt::format(
          "<path class=\"nonfinite\" data-x=\"{}\" d=\"M{:.1f},{:.1f}l6,6m0,-6l-6,6\"><title>{} {}: "
          "{}</title></path>\n",
          format_index(p.x), px - 3, kTop + 2, html_escape(chart.x_field), format_index(p.x),
          html_escape(p.text));
    }
  }
  for (const auto& m : marks) {
    if (m.first != m.last) continue;
    svg += fmt::format(
        "<circle class=\"anomaly\" data-x=\"{}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"5\"><title>{} {}: "
        "{}{}</title></circle>\n",
        format_index(m.first), x.map(m.first), m.has_y ? y.map(m.y) : kTop + 5, html_escape(chart.x_field),
        format_index(m.first), html_escape(m.source), m.has_y ? " (value " + format_number(m.y) + ")" : "");
  }
  if (chart.curves.size() > 1)
    for (std::size_t i = 0; i < chart.curves.size(); ++i)
      svg += fmt::format("<text class=\"legend\" x=\"{:.1f}\" y=\"{:.1f}\" fill=\"{}\">{}</text>\n",
                         kW - kRight - 90, kTop + 14 + 14 * static_cast<double>(i),
                         kPalette[i % std::size(kPalette)],
                         html_escape(chart.curves[i].label.empty() ? chart.field : chart.curves[i].label));
  svg += "</svg>\n";
  return svg;
}

std::string rank_bars_svg(const std::vector<RankBar>& bars) {
  constexpr double kW = 760, kLeft = 80, kRight = 150, kRow = 26, kTop = 24;
  const double h = kTop + kRow * static_cast<double>(bars.size()) + 10;
  double max_step = 0;
  for (const auto& b : bars) max_step = std::max(max_step, b.step_ms);
  if (max_step <= 0) max_step = 1;
  const double scale = (kW - kLeft - kRight) / max_step;
  std::string svg = fmt::format(
      "<svg class=\"rank-bars\" viewBox=\"0 0 {0} {1:.0f}\" width=\"{0}\" height=\"{1:.0f}\" role=\"img\" "
      "xmlns=\"http://www.w3.org/2000/svg\"><title>Per-rank median step: compute, communication, "
      "free</title>\n",
      kW, h);
  const char* kinds[] = {"compute", "communication", "free"};
  for (int k = 0; k < 3; ++k)
    svg += fmt::format(
        "<rect class=\"part-{0}\" x=\"{1}\" y=\"4\" width=\"12\" height=\"12\"/><text x=\"{2}\" "
        "y=\"14\">{0}</text>\n",
        kinds[k], kLeft + 130 * k, kLeft + 130 * k + 16);
  for (std::size_t i = 0; i < bars.size(); ++i) {
    const RankBar& b = bars[i];
    const double y = kTop + kRow * static_cast<double>(i);
    svg += fmt::format(
        "<g class=\"rank-bar\" data-rank=\"{}\"><text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">rank "
        "{}</text>",
        html_escape(b.rank), kLeft - 6, y + 15, html_escape(b.rank));
    const double parts[] = {b.compute_ms, b.communication_ms, b.free_ms};
    double at = kLeft;
    for (int k = 0; k < 3; ++k) {
      svg += fmt::format(
          "<rect class=\"part-{}\" x=\"{:.1f}\" y=\"{:.1f}\" width=\"{:.1f}\" height=\"18\"><title>rank {} "
          "{}: {} ms</title></rect>",
          kinds[k], at, y + 2, parts[k] * scale, html_escape(b.rank), kinds[k], format_number(parts[k]));
      at += parts[k] * scale;
    }
    svg += fmt::format("<text x=\"{:.1f}\" y=\"{:.1f}\">{} ms</text></g>\n", at + 6, y + 15,
                       format_number(b.step_ms));
  }
  svg += "</svg>\n";
  return svg;
}

std::string causal_graph_svg(const CausalGraphView& graph) {
  constexpr double kNodeW = 190, kNodeH = 48, kGapX = 20, kGapY = 64, kMargin = 16;
  std::map<int, std::vector<std::size_t>> layers;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) layers[graph.nodes[i].layer].push_back(i);
  std::size_t widest = 1;
  for (const auto& [layer, members] : layers) widest = std::max(widest, members.size());
  const double w = 2 * kMargin + static_cast<double>(widest) * (kNodeW + kGapX) - kGapX;
  const double h = 2 * kMargin + static_cast<double>(layers.size()) * (kNodeH + kGapY) - kGapY;
  std::vector<std::pair<double, double>> pos(graph.nodes.size());  // top-left corner
  int row = 0;
  for (const auto& [layer, members] : layers) {
    const double row_w = static_cast<double>(members.size()) * (kNodeW + kGapX) - kGapX;
    for (std::size_t k = 0; k < members.size(); ++k)
      pos[members[k]] = {(w - row_w) / 2 + static_cast<double>(k) * (kNodeW + kGapX),
                         kMargin + row * (kNodeH + kGapY)};
    ++row;
  }
  std::string svg = fmt::format(
      "<svg class=\"causal-graph\" viewBox=\"0 0 {0:.0f} {1:.0f}\" width=\"{0:.0f}\" height=\"{1:.0f}\" "
      "role=\"img\" "
      "xmlns=\"http://www.w3.org/2000/svg\"><title>Causal graph {2}</title>\n"
      "<defs><marker id=\"arrow\" viewBox=\"0 0 10 10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" "
      "markerHeight=\"7\" "
      "orient=\"auto\"><path d=\"M0,0L10,5L0,10z\" fill=\"#888\"/></marker><marker id=\"arrow-path\" "
      "viewBox=\"0 0 10 "
      "10\" refX=\"10\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto\"><path "
      "d=\"M0,0L10,5L0,10z\" "
      "fill=\"#d62728\"/></marker></defs>\n",
      w, h, html_escape(graph.name));
  for (const auto& edge : graph.edges) {
    const bool on_path =
        std::find(graph.path_edges.begin(), graph.path_edges.end(), edge) != graph.path_edges.end();
    const auto [px, py] = pos[edge.first];
    const auto [cx, cy] = pos[edge.second];
    svg += fmt::format(
        "<line class=\"edge{}\" data-from=\"{}\" data-to=\"{}\" x1=\"{:.1f}\" y1=\"{:.1f}\" x2=\"{:.1f}\" "
        "y2=\"{:.1f}\" "
        "marker-end=\"url(#{})\"/>\n",
        on_path ? " on-path" : "", html_escape(graph.nodes[edge.first].name),
        html_escape(graph.nodes[edge.second].name), px + kNodeW / 2, py + kNodeH, cx + kNodeW / 2, cy,
        on_path ? "arrow-path" : "arrow");
  }
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) {
    const GraphNode& n = graph.nodes[i];
    const auto [x, y] = pos[i];
    std::string klass = "node";
    if (n.on_path) klass += " on-path";
    if (!n.observed_state.empty()) klass += " observed";
    std::string state;
    if (!n.observed_state.empty())
      state = "observed: " + n.observed_state;
    else if (!n.path_state.empty())
      state = "path: " + n.path_state;
    else if (!n.likeliest_state.empty())
      state = n.likeliest_state + " p=" + format_number(n.likeliest_probability);
    std::string tooltip = n.name;
    if (!n.description.empty()) tooltip += ": " + n.description;
    if (!n.states.empty()) {
      tooltip += " [states:";
      for (const auto& s : n.states) tooltip += " " + s;
      tooltip += "]";
    }
    svg += fmt::format(
        "<g class=\"{}\" data-var=\"{}\"><title>{}</title><rect x=\"{:.1f}\" y=\"{:.1f}\" width=\"{}\" "
        "height=\"{}\" "
        "rx=\"6\"/><text class=\"name\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text><text "
        "class=\"state\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text></g>\n",
        klass, html_escape(n.name), html_escape(tooltip), x, y, kNodeW, kNodeH, x + kNodeW / 2, y + 19,
        html_escape(shorten(n.name, 26)), x + kNodeW / 2, y + 37, html_escape(shorten(state, 30)));
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace cann_debug::report
