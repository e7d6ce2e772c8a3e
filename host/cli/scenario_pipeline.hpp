// Running a scenario pipeline (pipelines/<scenario>.yaml) on one input folder with its outputs tapped:
// the verbs that answer on the terminal (infer --input, kb learn, diagnose) drop the pipeline's sinks and
// tap what its components emit instead (the runner's port taps), so the same YAML an operator runs with
// `cann-debug run` is the one these verbs use.
#pragma once

#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"

namespace cann_debug::cli {

/// Where `pipelines/<scenario>.yaml` is looked for, in order: $CANN_DEBUG_PIPELINE_PATH (folders,
/// ':'-separated), <exe>/../share/cann-debug/pipelines, the source tree's pipelines/ (builds).
std::vector<std::string> pipeline_search_path();
/// The first `<dir>/<scenario>.yaml` on the search path, or nullopt.
std::optional<std::string> find_scenario_pipeline(const std::string& scenario);

struct TapRequest {
  std::string pipeline;                // file
  std::string input;                   // ${input}
  std::string output;                  // ${output}; sinks are dropped, so it is only needed for expansion
  std::vector<std::string> vars;       // name=value
  std::vector<std::string> overrides;  // type/name.option=value
  /// Options set on every component of a type, e.g. {"discretize": {{"graph", "g.json"}}}.
  std::map<std::string, nlohmann::json> set_on_type;
  /// Message types to tap on every output port that emits them.
  std::vector<std::string> tap_types;
  /// Output ports to tap (type/name, port), beside those of tap_types.
  std::vector<host::PortTap> tap_ports;
  /// Hand each tapped message over as it is emitted, and stop the sources on an interrupt (TapSpec).
  std::function<void(const TappedMessage&)> on_message;
  const std::atomic<int>* interrupt = nullptr;
  int interrupt_fd = -1;
  /// Keep the pipeline's sinks (they write their files under ${output}) instead of dropping them.
  bool keep_sinks = false;
  /// Sink types kept even when the others are dropped (their options set through set_on_type, e.g. the
  /// report with `formats: []`, which writes nothing and emits its model).
  std::set<std::string> keep_sink_types;
};

/// Parses the pipeline with the variables, drops its sink components (unless keep_sinks), taps every
/// output port of the requested types, plans and runs it. Prints problems to stderr; returns kOk,
/// kInvalidPipeline or kRunFailed (what was tapped before a failure is kept in `out`).
int run_tapped(const GlobalOptions& g, const TapRequest& request, EmbeddedRun& out);

}  // namespace cann_debug::cli
