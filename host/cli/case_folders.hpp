// Case folders: a run's artifacts in one folder, labelled by an expected.json (the layout of the case
// corpus, docs/cases.md): {"scenario": ..., "root_cause": ..., "healthy": ...}.
#pragma once

#include <string>
#include <vector>

namespace cann_debug::cli {

struct LabelledCase {
  std::string folder;
  std::string scenario;
  std::string root_cause;
};

/// Every folder at or below `root` (3 levels deep) holding an expected.json, sorted by path; only those
/// of `scenario` unless it is empty. Returns false with `problem` set when none is found or an
/// expected.json is not valid (file and reason).
bool find_labelled_cases(const std::string& root, const std::string& scenario, std::vector<LabelledCase>& out,
                         std::string& problem);

}  // namespace cann_debug::cli
