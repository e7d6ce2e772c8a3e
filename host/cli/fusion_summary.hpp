// RUN_DIR/fusion.json of `collect -- COMMAND`: what each source of the run folder holds (log records,
// hardware series and samples, trace events, requests), on which clock, how far the clocks were measured
// to be apart, and the stored size against the raw one (docs/collect.md, "fusion.json").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "plugin_registry.hpp"
#include "stream_capture.hpp"

namespace cann_debug::cli {

struct WorkloadRun {
  std::vector<std::string> command;  // argv, or empty with --pid
  long pid = 0;
  bool attached = false;  // --pid: collect did not start it
  std::int64_t started_ns = 0, ended_ns = 0;
  std::string start_error;  // it could not be started
  std::string ended;        // "exited with status 0", ...
  int exit_code = 0;
  int signals_forwarded = 0;
  bool interrupted = false;
  std::vector<std::pair<std::string, CaptureTotals>> streams;  // stdout, stderr
  std::vector<std::string> copied;  // files picked up by --logs / --traces (relative to the run folder)
};

/// Robust summary of the measured offsets (arrival - own time) of log lines, in seconds.
nlohmann::json lag_summary(std::vector<double> lags_s);

/// Reads the run folder back with every reader that claims its files and builds fusion.json's document.
nlohmann::json fusion_summary(const host::PluginRegistry& registry, const std::string& run_dir,
                              const WorkloadRun& run, const std::string& recording_path);

}  // namespace cann_debug::cli
