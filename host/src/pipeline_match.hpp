// Evaluating pipelines' `match:` rules against a run's folder: the files under it (to depth 3) are listed
// once and each is sniffed by every reader (host/src/reader_selection), so a rule `reader: chrome_trace,
// at_least: 2` counts the files the chrome_trace reader would claim, whatever they are called.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "pipeline_document.hpp"
#include "plugin_registry.hpp"

namespace cann_debug::host {

/// What match rules look at in one folder.
class RunFolder {
 public:
  /// Lists `path` to depth 3 (at most `max_entries` entries, in name order) and sniffs each entry.
  RunFolder(const PluginRegistry& registry, const std::string& path, std::size_t max_entries = 512);

  const std::string& path() const { return path_; }
  /// Files and folders whose best claimant is `reader` (the folder itself included).
  std::size_t claimed_by(const std::string& reader) const;
  /// The same entries, by path.
  std::vector<std::string> claimed_paths(const std::string& reader) const;
  /// Files with one of these names.
  std::vector<std::string> named(const std::vector<std::string>& names) const;

 private:
  std::string path_;
  std::map<std::string, std::vector<std::string>> claims_;  // reader type -> entries it claims best
  std::multimap<std::string, std::string> by_name_;         // file name -> path
};

/// Why the rule holds for the folder ("2 files read by chrome_trace"), or nullopt when it does not.
std::optional<std::string> rule_holds(const MatchRule& rule, const RunFolder& folder);

}  // namespace cann_debug::host
