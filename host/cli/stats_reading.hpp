// Reads the files of `cann-debug stats` through one pipeline run: each file's reader, and hta_metrics fed
// by every reader that emits trace events. Readers and hta_metrics run with `on_error: drain`, so a reader
// that fails keeps what it delivered (counted, and given to hta_metrics, whose figures are then marked
// partial) and the other files are still read. What the readers emit is counted in the runner's port
// taps as it is emitted and then dropped, so memory stays flat however long the files are.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin_registry.hpp"
#include "stats_model.hpp"

namespace cann_debug::cli::stats {

struct FileToRead {
  std::string path;
  const host::ComponentEntry* reader = nullptr;
  int sniff_score = 0;
  std::vector<std::string> also_claimed_by;
  nlohmann::json options = nlohmann::json::object();  // over the reader's defaults; `path` is set
};

struct ReadOptions {
  bool hta = true;                         // feed trace events to hta_metrics
  bool include_last_profiler_step = true;  // hta_metrics' option (false = HTA's own default)
};

struct ReadResult {
  std::vector<FileStats> files;  // in the order of the request
  /// Set when a reader emitted trace events: hta_metrics' figures, or why there are none.
  std::optional<HtaResult> hta;
};

ReadResult read_files(const host::PluginRegistry& registry, const std::vector<FileToRead>& files,
                      const ReadOptions& options);

}  // namespace cann_debug::cli::stats
