// Helpers of the training feature tests: records built from JSON rows, and running the extractor on them.
#pragma once

#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "cann_debug/time.hpp"
#include "training_features.hpp"

namespace cann_debug::plugins::training_test {

inline constexpr std::size_t kRecordsPort = 0;
inline constexpr std::size_t kConfigPort = 3;

/// A record whose correlation key is filled from 'step' and 'time' as the jsonl reader does.
inline Record record_of(const nlohmann::json& fields, std::int64_t line) {
  Record r;
  r.line = line;
  r.fields = fields;
  if (fields.contains("step") && fields.at("step").is_number_integer())
    r.key.step_id = fields.at("step").get<std::int64_t>();
  if (fields.contains("time") && fields.at("time").is_number())
    r.key.timestamp_ns = seconds_to_ns(fields.at("time").get<double>());
  if (fields.contains("rank") && fields.at("rank").is_number_integer())
    r.key.rank = fields.at("rank").get<std::int32_t>();
  return r;
}

inline Envelope records_of(const std::vector<nlohmann::json>& rows) {
  RecordBatch b;
  std::int64_t line = 1;
  for (const auto& row : rows) b.records.push_back(record_of(row, line++));
  return Envelope::make(CorrelationKey{}, std::move(b));
}

/// Rows of a .jsonl file; fails the test on a line that is not JSON.
inline std::vector<nlohmann::json> read_jsonl(const std::string& path) {
  std::vector<nlohmann::json> rows;
  std::ifstream in(path);
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (j.is_discarded())
      ADD_FAILURE() << path << ":" << number << ": not JSON";
    else
      rows.push_back(std::move(j));
  }
  return rows;
}

inline Envelope config_of(const nlohmann::json& document) {
  return Envelope::make(CorrelationKey{}, RunConfiguration{"config.json", document});
}

inline FeatureSet run_extractor(const std::vector<std::pair<std::size_t, Envelope>>& inputs) {
  testing::Harness h(training_features_factory(), nlohmann::json::object());
  h.run_processor(inputs);
  const auto sets = h.outputs_of<FeatureSet>(0);
  EXPECT_EQ(sets.size(), 1u);
  return sets.empty() ? FeatureSet{} : sets.back();
}

inline std::optional<Feature> find(const FeatureSet& set, const std::string& name,
                                   const Labels& labels = {}) {
  for (const auto& f : set.features)
    if (f.name == name && f.labels == labels) return f;
  return std::nullopt;
}

inline double value_of(const FeatureSet& set, const std::string& name, const Labels& labels = {}) {
  const auto f = find(set, name, labels);
  if (!f) ADD_FAILURE() << "no feature " << name;
  return f ? f->value : std::nan("");
}

/// The evidence of a feature (a copy; empty, and a test failure, when the feature is absent).
inline std::vector<EvidenceRef> evidence_of(const FeatureSet& set, const std::string& name) {
  const auto f = find(set, name);
  if (!f) {
    ADD_FAILURE() << "no feature " << name;
    return {};
  }
  return f->evidence;
}

inline std::string unit_of(const FeatureSet& set, const std::string& name) {
  const auto f = find(set, name);
  if (!f) ADD_FAILURE() << "no feature " << name;
  return f ? f->unit : std::string();
}

}  // namespace cann_debug::plugins::training_test
