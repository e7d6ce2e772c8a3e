// Case folders: a run's artifacts in one folder, labelled by an expected.json (the layout of the case
// corpus, docs/cases.md): {"scenario": ..., "root_cause": ..., "healthy": ...}.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cann_debug::cli {

struct LabelledCase {
  std::string folder;
  std::string scenario;
  std::string root_cause;
  /// expected.json's "variant": the value of every axis of the matrix the run came from (may be empty).
  nlohmann::json variant = nlohmann::json::object();
  /// expected.json's "hidden": states of hidden variables the run knows it has (e.g. {"order_kind":
  /// "reused"} for a healthy run whose loader reads a stored, mixed order), for learning; may be empty.
  std::map<std::string, std::string> hidden;
};

/// The value of `axis` for a case, as text: the dotted key in expected.json's "variant" first, then in the
/// case's config.json (so `optimizer.name` or `model.type` also groups runs that carry no variant);
/// "" when neither has it.
std::string case_axis_value(const LabelledCase& c, const std::string& axis);

/// Every folder at or below `root` (3 levels deep) holding an expected.json, sorted by path; only those
/// of `scenario` unless it is empty. Returns false with `problem` set when none is found or an
/// expected.json is not valid (file and reason).
bool find_labelled_cases(const std::string& root, const std::string& scenario, std::vector<LabelledCase>& out,
                         std::string& problem);

}  // namespace cann_debug::cli
