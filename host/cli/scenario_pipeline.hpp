// Running a scenario pipeline (pipelines/<scenario>.yaml) on one input folder with its outputs tapped:
// the verbs that answer on the terminal (infer --input, kb learn, diagnose) drop the pipeline's sinks and
// capture what its components emit instead, so the same YAML an operator runs with `cann-debug run`
// is the one these verbs use.
#pragma once

#include <map>
#include <optional>
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
  /// Message types to capture from every output port that emits them.
  std::vector<std::string> capture_types;
  /// Keep the pipeline's sinks (they write their files under ${output}) instead of dropping them.
  bool keep_sinks = false;
};

struct TappedMessage {
  std::string component;  // type/name
  std::string port;
  Envelope envelope;
};

struct TappedRun {
  EmbeddedRun run;  // keeps the plan alive (envelopes refer to it)
  std::vector<TappedMessage> messages;
  /// Messages of one type, in arrival order per port.
  std::vector<const TappedMessage*> of_type(std::string_view type_id) const;
};

/// Parses the pipeline with the variables, drops its sink components, taps the requested types, plans
/// and runs it. Prints problems to stderr; returns kOk, kInvalidPipeline or kRunFailed (what was
/// captured before a failure is kept in `out`).
int run_tapped(const GlobalOptions& g, const TapRequest& request, TappedRun& out);

}  // namespace cann_debug::cli
