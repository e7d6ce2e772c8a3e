// Which of a diagnosis' suggestions the console shows when it has room for only a few: the first (best)
// suggestion of every root cause answered, most likely cause first, then the others in their order. A run
// read as 0.6 one cause / 0.4 another then shows how to fix either, not three ways to fix the first.
#pragma once

#include <algorithm>
#include <cstddef>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cann_debug::cli {

/// Indices into `suggestions` (the advisor's order: causes by confidence, each cause's suggestions by
/// priority), at most `limit` of them, ascending.
inline std::vector<std::size_t> suggestions_to_show(const nlohmann::json& suggestions, std::size_t limit) {
  std::vector<std::size_t> chosen;
  if (!suggestions.is_array()) return chosen;
  std::set<std::string> answered;
  for (std::size_t i = 0; i < suggestions.size() && chosen.size() < limit; ++i) {
    const std::string cause = suggestions[i].is_object() ? suggestions[i].value("root_cause", "") : "";
    if (answered.insert(cause).second) chosen.push_back(i);
  }
  for (std::size_t i = 0; i < suggestions.size() && chosen.size() < limit; ++i)
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace cann_debug::cli
