#include "series_collector.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>

namespace cann_debug::report {
namespace {

using nlohmann::json;

/// A numeric log value: a JSON number, or one of the strings the corpus uses for non-finite numbers.
struct LoggedValue {
  bool present = false;
  bool finite = false;
  double value = 0.0;
  std::string text;
};

LoggedValue read_value(const json& v) {
  LoggedValue out;
  if (v.is_number()) {
    out.present = true;
    out.value = v.get<double>();
    out.finite = std::isfinite(out.value);
    if (!out.finite) out.text = std::isnan(out.value) ? "nan" : (out.value > 0 ? "inf" : "-inf");
    return out;
  }
  if (v.is_string()) {
    std::string s = v.get<std::string>();
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    if (s == "nan" || s == "inf" || s == "-inf" || s == "+inf" || s == "infinity" || s == "-infinity") {
      out.present = true;
      out.text = s;
    }
  }
  return out;
}

std::optional<double> read_index(const json& fields, const char* x_field) {
  auto it = fields.find(x_field);
  if (it == fields.end() || !it->is_number()) return std::nullopt;
  const double x = it->get<double>();
  return std::isfinite(x) ? std::optional<double>(x) : std::nullopt;
}

std::string group_of(const json& fields) {
  auto it = fields.find("rank");
  if (it == fields.end()) return {};
  if (it->is_number_integer()) return "rank " + std::to_string(it->get<std::int64_t>());
  if (it->is_string()) return "rank " + it->get<std::string>();
  return {};
}

CurveSummary summarize(const Curve& curve) {
  CurveSummary s;
  s.finite_count = curve.points.size();
  s.nonfinite_count = curve.nonfinite.size();
  if (curve.points.empty()) return s;
  s.first = curve.points.front();
  s.last = curve.points.back();
  s.min = s.max = s.first;
  std::vector<double> ys;
  ys.reserve(curve.points.size());
  for (const auto& p : curve.points) {
    if (p.y < s.min.y) s.min = p;
    if (p.y > s.max.y) s.max = p;
    ys.push_back(p.y);
  }
  const std::size_t mid = ys.size() / 2;
  std::nth_element(ys.begin(), ys.begin() + static_cast<std::ptrdiff_t>(mid), ys.end());
  s.median = ys[mid];
  if (ys.size() % 2 == 0)
    s.median = (s.median + *std::max_element(ys.begin(), ys.begin() + static_cast<std::ptrdiff_t>(mid))) / 2;
  return s;
}

}  // namespace

void SeriesCollector::add(const RecordBatch& batch) {
  for (const auto& record : batch.records) {
    if (!record.fields.is_object()) continue;
    for (std::size_t f = 0; f < std::size(kPlottedFields); ++f) {
      const auto& spec = kPlottedFields[f];
      auto it = record.fields.find(spec.field);
      if (it == record.fields.end()) continue;
      const LoggedValue v = read_value(*it);
      if (!v.present) continue;
      std::optional<double> x = read_index(record.fields, spec.x_field);
      if (!x && record.key.has_step() && std::string_view(spec.x_field) == "step")
        x = static_cast<double>(record.key.step_id);
      if (!x) {
        x = static_cast<double>(rows_seen_[f]);
        x_missing_[f] = true;
      }
      ++rows_seen_[f];
      Curve& curve = curves_[{f, group_of(record.fields)}];
      if (v.finite)
        curve.points.push_back({*x, v.value});
      else
        curve.nonfinite.push_back({*x, v.text});
    }
  }
}

std::vector<SeriesChart> SeriesCollector::charts() const {
  std::vector<SeriesChart> out;
  for (std::size_t f = 0; f < std::size(kPlottedFields); ++f) {
    SeriesChart chart;
    chart.field = kPlottedFields[f].field;
    chart.x_field = x_missing_[f] ? "row" : kPlottedFields[f].x_field;
    chart.title = kPlottedFields[f].title;
    for (const auto& [key, curve] : curves_) {
      if (key.field != f) continue;
      Curve sorted = curve;
      sorted.label = key.group;
      std::stable_sort(sorted.points.begin(), sorted.points.end(),
                       [](const CurvePoint& a, const CurvePoint& b) { return a.x < b.x; });
      std::stable_sort(sorted.nonfinite.begin(), sorted.nonfinite.end(),
                       [](const NonFinitePoint& a, const NonFinitePoint& b) { return a.x < b.x; });
      sorted.summary = summarize(sorted);
      chart.curves.push_back(std::move(sorted));
    }
    if (!chart.curves.empty()) out.push_back(std::move(chart));
  }
  return out;
}

std::vector<CurvePoint> downsample_min_max(const std::vector<CurvePoint>& points, std::size_t max_points) {
  if (points.size() <= max_points || max_points < 2) return points;
  const std::size_t buckets = max_points / 2;
  const std::size_t bucket_size = (points.size() + buckets - 1) / buckets;
  std::vector<CurvePoint> out;
  out.reserve(2 * buckets);
  for (std::size_t begin = 0; begin < points.size(); begin += bucket_size) {
    const std::size_t end = std::min(points.size(), begin + bucket_size);
    std::size_t lo = begin;
    std::size_t hi = begin;
    for (std::size_t i = begin; i < end; ++i) {
      if (points[i].y < points[lo].y) lo = i;
      if (points[i].y > points[hi].y) hi = i;
    }
    out.push_back(points[std::min(lo, hi)]);
    if (lo != hi) out.push_back(points[std::max(lo, hi)]);
  }
  return out;
}

SeriesChart downsampled(const SeriesChart& chart, std::size_t max_points) {
  SeriesChart out = chart;
  for (auto& curve : out.curves) {
    curve.points = downsample_min_max(curve.points, max_points);
    // Non-finite samples: every stride-th one (the first and the last always), at most max_points.
    if (curve.nonfinite.size() > max_points && max_points >= 2) {
      std::vector<NonFinitePoint> kept;
      const double stride =
          static_cast<double>(curve.nonfinite.size() - 1) / static_cast<double>(max_points - 1);
      for (std::size_t i = 0; i < max_points; ++i)
        kept.push_back(
            curve.nonfinite[static_cast<std::size_t>(std::llround(static_cast<double>(i) * stride))]);
      curve.nonfinite = std::move(kept);
    }
  }
  return out;
}

}  // namespace cann_debug::report
