// The report sink's view of a run: what arrived on its inputs, reduced to what the report shows.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::report {

/// One finite sample of a curve: x is the step or request id, y the logged value.
struct CurvePoint {
  double x = 0.0;
  double y = 0.0;
};

/// A logged value that is not a finite number ("nan", "inf", "-inf"): marked on the plot, never drawn.
struct NonFinitePoint {
  double x = 0.0;
  std::string text;
};

/// Figures of a full-resolution curve (before downsampling).
struct CurveSummary {
  std::size_t finite_count = 0;
  std::size_t nonfinite_count = 0;
  CurvePoint first, last, min, max;  // meaningful when finite_count > 0
  double median = 0.0;
};

/// One line of a chart: the samples of one field for one group (a rank, or the whole run).
struct Curve {
  std::string label;  // "" for the whole run, "rank 3" for a rank of a distributed run
  CurveSummary summary;
  std::vector<CurvePoint> points;  // every finite sample, sorted by x
  std::vector<NonFinitePoint> nonfinite;
};

/// A chart of one log field (loss, grad_norm, latency_ms) against its index field (step, request_id).
struct SeriesChart {
  std::string field;    // the log field plotted
  std::string x_field;  // "step" or "request_id" (or "row" when the log has no index field)
  std::string title;
  std::vector<Curve> curves;
};

/// An x range [first, last] of a chart that the diagnosis or a feature names as anomalous.
struct AnomalyMark {
  double first = 0.0;
  double last = 0.0;
  std::string source;  // the root cause or feature that points at it
  bool has_y = false;  // a single point with a finite value on the chart's first curve holding that x
  double y = 0.0;
};

/// One operator of the top-operator table.
struct OperatorRow {
  std::string name;
  std::int64_t count = 0;
  double total_ms = 0.0;  // inclusive time (children included)
  double self_ms = 0.0;   // time not spent in nested operators
  double share = 0.0;     // self time / self time of all operators
};

/// Where one rank's median step goes (distributed runs): compute + exposed communication + free = step.
struct RankBar {
  std::string rank;
  double step_ms = 0.0;
  double compute_ms = 0.0;
  double communication_ms = 0.0;
  double free_ms = 0.0;
};

/// One variable of the causal graph as drawn: its layer (0 = root) and the state shown.
struct GraphNode {
  std::string name;
  std::string description;
  std::vector<std::string> states;
  std::vector<std::string> parents;
  int layer = 0;
  std::string observed_state;   // from evidence/1 hard evidence, "" when not observed
  std::string likeliest_state;  // from the posterior marginal, "" when absent
  double likeliest_probability = 0.0;
  bool on_path = false;  // on the top cause's propagation path
  std::string path_state;
};

struct CausalGraphView {
  std::string name;
  std::vector<GraphNode> nodes;                            // in file order
  std::vector<std::pair<std::size_t, std::size_t>> edges;  // parent index -> child index
  std::vector<std::pair<std::size_t, std::size_t>> path_edges;
  std::string path_cause;  // the root cause whose path is highlighted
};

/// Why the analyzer found no signal its graph reads in the input (details.undetermined: the ranking is the
/// graph's prior); empty when it did.
inline std::string undetermined_reason(const Diagnosis& d) {
  if (!d.details.is_object()) return {};
  const auto it = d.details.find("undetermined");
  return it != d.details.end() && it->is_string() ? it->get<std::string>() : std::string();
}

/// What the run shows beside its verdict (details.observations: transients it recovered from, restarts, what
/// a profiler did to the requests), one sentence each with where it happened when known.
inline std::vector<std::string> observation_lines(const Diagnosis& d) {
  std::vector<std::string> out;
  if (!d.details.is_object()) return out;
  const auto it = d.details.find("observations");
  if (it == d.details.end() || !it->is_array()) return out;
  for (const auto& o : *it) {
    if (!o.is_object() || !o.contains("text") || !o["text"].is_string()) continue;
    std::string line = o["text"].get<std::string>();
    if (o.contains("where") && o["where"].is_string() && !o["where"].get<std::string>().empty())
      line += " (" + o["where"].get<std::string>() + ")";
    out.push_back(std::move(line));
  }
  return out;
}

/// The verdict a report states: "healthy", "problem found", or "undetermined" (undetermined_reason).
inline std::string verdict_text(const Diagnosis& d) {
  if (!undetermined_reason(d).empty()) return "undetermined";
  return d.healthy ? "healthy" : "problem found";
}

/// Everything a report format needs.
struct ReportModel {
  std::string title;
  std::optional<Diagnosis> diagnosis;
  std::vector<Advice> advice;
  std::vector<FeatureSet> feature_sets;
  std::optional<Posterior> posterior;
  std::vector<SeriesChart> charts;                    // downsampled curves
  std::vector<std::vector<AnomalyMark>> chart_marks;  // per chart
  std::vector<OperatorRow> operators;                 // aggregated from events, most self time first
  std::int64_t operator_events = 0;
  std::vector<Feature> operator_features;  // features with an `operator` label
  std::vector<RankBar> ranks;
  std::optional<CausalGraphView> graph;
  std::size_t max_points = 0;
};

}  // namespace cann_debug::report
