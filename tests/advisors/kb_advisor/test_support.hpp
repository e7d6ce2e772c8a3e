// Shared helpers of the kb_advisor tests: paths of the shipped and test knowledge bases, and small
// builders of diagnoses and feature sets.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::kb::test {

inline std::string shipped_kb_dir() {
  return std::string(CANN_DEBUG_SOURCE_DIR) + "/pipelines/kb";
}
inline std::string test_data(const std::string& name) {
  return std::string(CANN_DEBUG_TEST_DATA_DIR) + "/advisors/" + name;
}

inline Diagnosis diagnosis(std::string scenario, std::vector<std::pair<std::string, double>> causes,
                           bool healthy = false) {
  Diagnosis d;
  d.scenario = std::move(scenario);
  d.healthy = healthy;
  for (auto& [id, confidence] : causes) d.root_causes.push_back({id, confidence, {}, {}, ""});
  return d;
}

inline FeatureSet run_features(std::vector<std::pair<std::string, double>> values) {
  FeatureSet set;
  set.scope = "run";
  for (auto& [name, value] : values) set.features.push_back({name, value, "", {}, {}});
  return set;
}

}  // namespace cann_debug::plugins::kb::test
