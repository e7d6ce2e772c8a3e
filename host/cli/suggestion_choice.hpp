// Which of a diagnosis' suggestions the console shows when it has room for only a few: the first (best)
// suggestion of every root cause answered, most likely cause first, then the others in their order. A run
// read as 0.6 one cause / 0.4 another then shows how to fix either, not three ways to fix the first; a fix
// that answers two causes is shown once.
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
  const auto field = [&](std::size_t i, const char* key) {
    return suggestions[i].is_object() ? suggestions[i].value(key, "") : std::string();
  };
  // One fix that answers two causes (raise the bucket size: small packets, small buckets) is shown once.
  std::set<std::string> answered, titles;
  const auto take = [&](std::size_t i) {
    const std::string title = field(i, "title");
    if (!title.empty() && !titles.insert(title).second) return;
    chosen.push_back(i);
  };
  for (std::size_t i = 0; i < suggestions.size() && chosen.size() < limit; ++i)
    if (answered.insert(field(i, "root_cause")).second) take(i);
  for (std::size_t i = 0; i < suggestions.size() && chosen.size() < limit; ++i)
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) take(i);
  std::sort(chosen.begin(), chosen.end());
  return chosen;
}

}  // namespace cann_debug::cli
