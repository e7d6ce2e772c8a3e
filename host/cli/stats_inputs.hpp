// Turns a PATH argument of `cann-debug stats` into the files to read and reads each with the reader that
// claims it (host/src/reader_selection: every reader's sniff()), feeding trace events to hta_metrics: one
// pipeline run per argument (stats_reading).
#pragma once

#include <string>

#include "plugin_registry.hpp"
#include "stats_model.hpp"
#include "stats_reading.hpp"

namespace cann_debug::cli::stats {

struct CollectOptions {
  bool include_last_profiler_step = true;  // hta_metrics' option (false = HTA's own default)
};

/// A file is read with the reader that claims it best. A folder that a reader claims as a whole (e.g. an
/// Ascend profiler output tree) is read by it; otherwise every entry is visited in name order, folders
/// recursively (symbolic links to folders are not followed), and entries no reader claims are listed as
/// skipped. Every trace read under one argument goes to one hta_metrics, so a folder of per-rank traces
/// gives per-rank figures and, with two or more ranks, the job's stragglers.
InputStats collect_input(const host::PluginRegistry& registry, const std::string& argument,
                         const CollectOptions& options);

}  // namespace cann_debug::cli::stats
