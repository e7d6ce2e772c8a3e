#include "anomaly_marks.hpp"

#include <algorithm>
#include <limits>
#include <string>
#include <string_view>

namespace cann_debug::report {
namespace {

bool starts_with(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}

bool feature_concerns(std::string_view chart_field, std::string_view feature) {
  if (chart_field == "loss") return starts_with(feature, "loss.");
  if (chart_field == "grad_norm") return starts_with(feature, "grad_norm.") || starts_with(feature, "grad.");
  if (chart_field == "latency_ms")
    return starts_with(feature, "latency.") || starts_with(feature, "request.");
  return false;
}

/// The chart a reference's id names ("loss", "grad_norm", "loss.initial", "latency_ms", ...), "" for ids
/// that name no plotted series (a trace file, a rank), which apply to every chart of the right index.
std::string_view chart_named_by(std::string_view id) {
  if (starts_with(id, "loss")) return "loss";
  if (starts_with(id, "grad_norm") || starts_with(id, "grad.")) return "grad_norm";
  if (starts_with(id, "latency") || starts_with(id, "request")) return "latency_ms";
  return "";
}

bool ref_applies(const SeriesChart& chart, const EvidenceRef& ref) {
  if (ref.first_step < 0) return false;
  const std::string_view named = chart_named_by(ref.id);
  if (!named.empty() && named != chart.field) return false;
  if (chart.x_field == "step") return ref.kind == "step" || ref.kind == "steps";
  if (chart.x_field == "request_id") return ref.kind == "request" || ref.kind == "requests";
  return false;
}

struct Extent {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
};

Extent extent_of(const SeriesChart& chart) {
  Extent e;
  for (const auto& c : chart.curves) {
    for (const auto& p : c.points) e.lo = std::min(e.lo, p.x), e.hi = std::max(e.hi, p.x);
    for (const auto& p : c.nonfinite) e.lo = std::min(e.lo, p.x), e.hi = std::max(e.hi, p.x);
  }
  return e;
}

void add_mark(std::vector<AnomalyMark>& marks, const SeriesChart& chart, const Extent& extent,
              const EvidenceRef& ref, const std::string& source) {
  if (!ref_applies(chart, ref)) return;
  const double first = static_cast<double>(ref.first_step);
  const double last = static_cast<double>(std::max(ref.first_step, ref.last_step));
  const double span = extent.hi - extent.lo;
  if (last > first && span > 0 && (last - first + 1) >= 0.5 * (span + 1)) return;
  for (auto& m : marks)
    if (m.first == first && m.last == last) {
      if (m.source.find(source) == std::string::npos) m.source += ", " + source;
      return;
    }
  marks.push_back({first, last, source, false, 0.0});
}

void resolve_y(const SeriesChart& chart, AnomalyMark& mark) {
  if (mark.first != mark.last) return;
  for (const auto& c : chart.curves) {
    auto it = std::lower_bound(c.points.begin(), c.points.end(), mark.first,
                               [](const CurvePoint& p, double x) { return p.x < x; });
    if (it != c.points.end() && it->x == mark.first) {
      mark.has_y = true;
      mark.y = it->y;
      return;
    }
  }
}

}  // namespace

std::vector<AnomalyMark> anomaly_marks(const SeriesChart& chart, const std::optional<Diagnosis>& diagnosis,
                                       const std::vector<FeatureSet>& features, std::size_t max_marks) {
  std::vector<AnomalyMark> marks;
  const Extent extent = extent_of(chart);
  if (!(extent.lo <= extent.hi)) return marks;
  // A run diagnosed healthy has no anomalies to show: the steps its features point at (e.g. the step of
  // the largest loss) are then ordinary extremes, and marking them would read as a false alarm.
  if (diagnosis && diagnosis->healthy) return marks;
  if (diagnosis)
    for (const auto& cause : diagnosis->root_causes) {
      if (cause.id == "healthy") continue;
      for (const auto& ref : cause.evidence) add_mark(marks, chart, extent, ref, cause.id);
    }
  for (const auto& set : features)
    for (const auto& f : set.features) {
      if (!feature_concerns(chart.field, f.name)) continue;
      for (const auto& ref : f.evidence) add_mark(marks, chart, extent, ref, f.name);
    }
  std::stable_sort(marks.begin(), marks.end(), [](const AnomalyMark& a, const AnomalyMark& b) {
    return (a.last - a.first) < (b.last - b.first);
  });
  if (marks.size() > max_marks) marks.resize(max_marks);
  std::stable_sort(marks.begin(), marks.end(),
                   [](const AnomalyMark& a, const AnomalyMark& b) { return a.first < b.first; });
  for (auto& m : marks) resolve_y(chart, m);
  return marks;
}

}  // namespace cann_debug::report
