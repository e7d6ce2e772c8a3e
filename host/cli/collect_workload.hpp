// `cann-debug collect ... --output RUN_DIR -- COMMAND ARGS...` (or `--pid PID`): the samplers run beside a
// workload until it exits; its stdout and stderr are teed to the terminal and to RUN_DIR; what it writes
// (and what --logs / --traces point at) is read back and summarised in RUN_DIR/fusion.json.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cli_common.hpp"
#include "collect_plan.hpp"
#include "graph_runner.hpp"
#include "plugin_registry.hpp"

namespace cann_debug::cli {

struct WorkloadRequest {
  std::vector<std::string> command;  // argv (no shell)
  long pid = 0;                      // attach instead (0 = start `command`)
  std::string run_dir;
  std::vector<std::string> logs;    // globs of log files written outside the run folder
  std::vector<std::string> traces;  // folders of traces written outside the run folder
  std::uint64_t max_log_bytes = 0;  // per captured stream; 0 = no limit
  std::int64_t duration_ns = 0;     // stop the workload (SIGTERM to its group) after this long
  bool json = false;
  /// Diagnose each anomaly window as it closes (diagnoses.jsonl); without it the windows are only marked
  /// (fusion.json lists them).
  bool diagnose = false;
  std::string kb_outcomes;  // --diagnose: the advisor's measured outcomes ("" = priors only)
  std::string scenario = "auto";
};

/// Runs it; returns the process exit code of collect (the workload's, 127/126 when it could not start).
int collect_workload(const GlobalOptions& g, const WorkloadRequest& request, const CollectPlan& plan,
                     const host::PluginRegistry& registry, host::RunOptions options);

}  // namespace cann_debug::cli
