// Builds the features of one run: finite values only (a quantity that cannot be computed is absent), each
// with evidence references to the steps it was computed from.
#pragma once

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "cann_debug/messages.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// Evidence covering rows[first..last] (inclusive, positions in `rows`): their steps and times.
inline EvidenceRef rows_ref(const std::vector<LogRow>& rows, std::size_t first, std::size_t last,
                            std::string kind, std::string id) {
  EvidenceRef ref{std::move(kind), std::move(id), kNoTimestamp, kNoTimestamp, -1, -1};
  for (std::size_t i = first; i <= last && i < rows.size(); ++i) {
    const LogRow& r = rows[i];
    const std::int64_t step = step_of(r);
    ref.first_step = ref.first_step < 0 ? step : std::min(ref.first_step, step);
    ref.last_step = std::max(ref.last_step, step);
    if (r.time_ns != kNoTimestamp) {
      ref.start_ns = ref.start_ns == kNoTimestamp ? r.time_ns : std::min(ref.start_ns, r.time_ns);
      ref.end_ns = ref.end_ns == kNoTimestamp ? r.time_ns : std::max(ref.end_ns, r.time_ns);
    }
  }
  return ref;
}

/// Evidence for one row.
inline EvidenceRef row_ref(const std::vector<LogRow>& rows, std::size_t at, std::string id) {
  return rows_ref(rows, at, at, "step", std::move(id));
}

/// Evidence for one operator of a profiler trace: its name, span and profiler step.
inline EvidenceRef operator_ref(const Event& e) {
  const std::int64_t step = e.key.has_step() ? e.key.step_id : -1;
  return {"operator", e.name, e.start_ns, e.start_ns + e.duration_ns, step, step};
}

class FeatureList {
 public:
  /// Adds a feature when `value` is finite; a non-finite value means "cannot be computed" and is dropped.
  void add(std::string name, double value, std::string unit, std::vector<EvidenceRef> evidence,
           Labels labels = {}) {
    if (!std::isfinite(value)) return;
    features_.push_back({std::move(name), value, std::move(unit), std::move(evidence), std::move(labels)});
  }
  std::vector<Feature> take() { return std::move(features_); }

 private:
  std::vector<Feature> features_;
};

}  // namespace cann_debug::plugins::training_detail
