// Inline SVG drawings of the HTML report, generated here (no script library, no network).
// Every piece of user text is escaped with html_escape.
#pragma once

#include <string>
#include <vector>

#include "report_model.hpp"

namespace cann_debug::report {

/// A line chart of a (downsampled) chart: one `<polyline class="curve" data-series=FIELD>` per curve,
/// anomaly marks (`<circle class="anomaly" data-x=X>` for a single step or request, `<rect
/// class="anomaly-range" data-first=A data-last=B>` for a range) and non-finite samples (`<path
/// class="nonfinite" data-x=X>` crosses on the top edge). The y axis is logarithmic when every value is
/// positive and they span three decades or more (gradient norms of an exploding run), linear otherwise.
std::string line_chart_svg(const SeriesChart& chart, const std::vector<AnomalyMark>& marks);

/// Horizontal stacked bars, one per rank: compute, communication, free (ms), on one scale.
std::string rank_bars_svg(const std::vector<RankBar>& bars);

/// The causal graph in layers (roots on top), edges parent → child with arrows; nodes and edges of the
/// top cause's path get the class `on-path`, observed variables the class `observed`.
std::string causal_graph_svg(const CausalGraphView& graph);

}  // namespace cann_debug::report
