// Helpers of the Ascend sampler tests: scripts for the fake libdcmi.so, polling on a fake clock, finding
// points.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "plugin_test_support.hpp"

namespace cann_debug::plugins::ascend_test {

constexpr TimestampNs kT0 = 1'700'000'000'000'000'000;
constexpr TimestampNs kTwoSeconds = 2'000'000'000;

/// Writes `script` into `dir` and points the fake libdcmi.so at it.
inline void use_script(const test::TempDir& dir, const nlohmann::json& script) {
  const auto path = dir / "dcmi_script.json";
  test::write_file(path, script.dump(2));
  ::setenv("CANN_DEBUG_FAKE_DCMI_SCRIPT", path.c_str(), 1);
}

/// A script with one NPU (card 0, device 0, logical id 0) holding `values` and `errors`.
inline nlohmann::json one_device(nlohmann::json values, nlohmann::json errors = nlohmann::json::object()) {
  return {
      {"devices", {{{"card", 0}, {"device", 0}, {"logic_id", 0}, {"values", values}, {"errors", errors}}}}};
}

/// start(), then `n` polls `step_ns` apart (2 s by default) on the fake clock from kT0; the batch of each
/// poll (empty if none).
inline std::vector<MetricBatch> poll_n(testing::Harness& h, int n, TimestampNs step_ns = kTwoSeconds) {
  h.component().start();
  std::vector<MetricBatch> batches;
  for (int i = 0; i < n; ++i) {
    h.host.clock_ns = kT0 + i * step_ns;
    const std::size_t before = h.out.emitted.size();
    h.component().poll(h.out);
    batches.emplace_back();
    if (h.out.emitted.size() > before) batches.back() = metric_points_of(h.out.emitted.back().second);
  }
  return batches;
}

/// The point named `name` whose labels include `labels`.
inline std::optional<MetricPoint> find(const MetricBatch& b, const std::string& name,
                                       const Labels& labels = {}) {
  for (const auto& p : b.points) {
    if (p.name != name) continue;
    bool match = true;
    for (const auto& [k, v] : labels) {
      auto it = p.labels.find(k);
      match = match && it != p.labels.end() && it->second == v;
    }
    if (match) return p;
  }
  return std::nullopt;
}

inline double value(const MetricBatch& b, const std::string& name, const Labels& labels = {}) {
  auto p = find(b, name, labels);
  if (!p) ADD_FAILURE() << "no point " << name;
  return p ? p->value : -1.0;
}

/// name -> unit of every point.
inline std::map<std::string, std::string> names_and_units(const MetricBatch& b) {
  std::map<std::string, std::string> m;
  for (const auto& p : b.points) m[p.name] = p.unit;
  return m;
}

}  // namespace cann_debug::plugins::ascend_test
