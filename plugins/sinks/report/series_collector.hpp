// Collects the curves of the report (loss and gradient norm per step, latency per request) from log rows,
// and downsamples them for plotting.
#pragma once

#include <compare>
#include <cstddef>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cann_debug/messages.hpp"
#include "report_model.hpp"

namespace cann_debug::report {

/// The log fields plotted, and the field that indexes each (the x axis).
struct PlottedField {
  const char* field;
  const char* x_field;
  const char* title;
};
inline constexpr PlottedField kPlottedFields[] = {
    {"loss", "step", "Training loss"},
    {"grad_norm", "step", "Gradient norm (before clipping)"},
    {"latency_ms", "request_id", "Request latency (ms)"},
};

class SeriesCollector {
 public:
  /// Reads the plotted fields of every record. A row of a distributed run (with a `rank` field) goes to
  /// that rank's curve. The x value is the index field, else the row's step key, else its arrival number.
  void add(const RecordBatch& batch);

  /// The full-resolution charts (curves sorted by x), in kPlottedFields order; fields never seen are absent.
  std::vector<SeriesChart> charts() const;

 private:
  struct CurveKey {
    std::size_t field;
    std::string group;
    auto operator<=>(const CurveKey&) const = default;
  };
  std::map<CurveKey, Curve> curves_;
  std::vector<std::size_t> rows_seen_ = std::vector<std::size_t>(std::size(kPlottedFields), 0);
  std::vector<bool> x_missing_ = std::vector<bool>(std::size(kPlottedFields), false);
};

/// At most `max_points` points that keep the shape of the curve: the points are split into max_points / 2
/// buckets of consecutive samples and each bucket keeps its minimum and its maximum (in x order), so every
/// spike and dip survives. Curves with at most max_points points are returned unchanged.
std::vector<CurvePoint> downsample_min_max(const std::vector<CurvePoint>& points, std::size_t max_points);

/// The chart with every curve downsampled.
SeriesChart downsampled(const SeriesChart& chart, std::size_t max_points);

}  // namespace cann_debug::report
