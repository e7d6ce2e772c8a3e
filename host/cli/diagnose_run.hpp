// One diagnosis of a run's folder: route the scenario, run pipelines/<scenario>.yaml with its outputs
// tapped (and its sinks kept when an output folder is given), and assemble the document `diagnose --json`
// prints (docs/diagnose.md). `eval` calls the same function for every labelled case.
#pragma once

#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"

namespace cann_debug::cli {

struct DiagnoseRequest {
  std::string input;
  std::string scenario = "auto";
  std::string output;    // "" = no files written (sinks dropped)
  std::string pipeline;  // "" = pipelines/<scenario>.yaml
  /// Options set on every component of a type (e.g. {"bayes_exact": {"graph": "fold.json"}}).
  std::map<std::string, nlohmann::json> set_on_type;
};

struct DiagnoseResult {
  int rc = 0;
  std::string error;        // when rc != 0
  nlohmann::json document;  // the diagnose --json document
};

DiagnoseResult diagnose_folder(const GlobalOptions& g, const DiagnoseRequest& request);

/// The text form of a diagnose document.
void print_diagnosis_text(const nlohmann::json& doc);

}  // namespace cann_debug::cli
