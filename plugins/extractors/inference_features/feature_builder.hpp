// Appends features to a feature set, dropping values that could not be computed (NaN / inf): a feature
// that the inputs do not support is absent, never a fake number.
#pragma once

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::inference {

class FeatureBuilder {
 public:
  explicit FeatureBuilder(std::vector<Feature>& out) : out_(out) {}

  /// Adds `name` = `value` [`unit`] with its evidence when `value` is finite; returns whether it did.
  bool add(std::string name, double value, std::string unit, std::vector<EvidenceRef> evidence = {}) {
    if (!std::isfinite(value)) return false;
    out_.push_back(Feature{std::move(name), value, std::move(unit), std::move(evidence), {}});
    return true;
  }

 private:
  std::vector<Feature>& out_;
};

/// Evidence naming a range of requests (by request_id) and the wall-clock window they cover.
inline EvidenceRef request_range(std::int64_t first, std::int64_t last, TimestampNs start_ns = kNoTimestamp,
                                 TimestampNs end_ns = kNoTimestamp) {
  EvidenceRef ref;
  ref.kind = "requests";
  ref.id = first == last ? "request " + std::to_string(first)
                         : "requests " + std::to_string(first) + ".." + std::to_string(last);
  ref.first_step = first;
  ref.last_step = last;
  ref.start_ns = start_ns;
  ref.end_ns = end_ns;
  return ref;
}

}  // namespace cann_debug::plugins::inference
