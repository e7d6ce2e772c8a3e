// One diagnosis of a run's folder: route the scenario, run pipelines/<scenario>.yaml with its outputs
// tapped (and its sinks kept when an output folder is given), and assemble the document `diagnose --json`
// prints (docs/diagnose.md). `eval` calls the same function for every labelled case.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "cli_common.hpp"

namespace cann_debug::cli {

struct DiagnoseRequest {
  std::string input;
  std::string scenario = "auto";
  std::string output;    // "" = no files written (sinks dropped)
  std::string pipeline;  // "" = pipelines/<scenario>.yaml
  /// Options set on every component of a type (e.g. {"bayes_exact": {"graph": "fold.json"}}).
  std::map<std::string, nlohmann::json> set_on_type;
  /// Keep the pipeline's report (writing no file when `output` is "") and return the report document it
  /// emits on `model`, for the console view.
  bool report_model = false;
  /// Also return the feature sets and the run configuration the pipeline read (what `optimize` measures a
  /// re-run by and tells its context from).
  bool run_inputs = false;
  /// The outcomes `optimize --feedback` measured (kb-outcomes/1), given to the advisor as its history so
  /// suggestions quote measured gains; "" = priors only.
  std::string kb_outcomes;
};

/// Where `optimize --feedback` writes and `diagnose` reads measured outcomes by default:
/// $CANN_DEBUG_KB_OUTCOMES, else $XDG_DATA_HOME/cann-debug/outcomes.json, else
/// ~/.local/share/cann-debug/outcomes.json ("" when none of them can be told).
std::string default_kb_outcomes_path();

/// The report component whose model the console renders, and its document's format.
inline constexpr std::string_view kReportType = "report";
inline constexpr std::string_view kReportFormat = "cann-debug.report/1";

struct DiagnoseResult {
  int rc = 0;
  std::string error;        // when rc != 0
  nlohmann::json document;  // the diagnose --json document
  nlohmann::json report;  // the report's model (cann-debug.report/1) when asked for and the pipeline has one
  std::vector<FeatureSet> features;  // with run_inputs: every feature set the extractors emitted
  RunConfiguration config;           // with run_inputs: the run's configuration (empty without one)
};

DiagnoseResult diagnose_folder(const GlobalOptions& g, const DiagnoseRequest& request);

}  // namespace cann_debug::cli
