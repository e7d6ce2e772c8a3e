// Scoring diagnoses against labels, shared by `eval` and `eval --leave-out` (docs/diagnose.md): one row per
// case (label, ranked answers, suggestion effectiveness, time) and the summary figures over rows (top-1,
// top-3, false alarms on healthy runs, confusion, median time, suggestion effectiveness, DQI).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "case_folders.hpp"
#include "cli_common.hpp"

namespace cann_debug::cli {

struct ScoreOptions {
  /// Diagnose the case without its config.json (what a user with only logs and traces has).
  bool signals_only = false;
  /// Component options set by type (e.g. the graph every component reads).
  std::map<std::string, nlohmann::json> set_on_type;
};

/// Diagnoses one labelled case and returns its row: case, label, scenario, predicted, ranked, confidence,
/// routed_to, elapsed_ms, suggestion_effective, error (when the diagnosis failed; predicted = "error").
nlohmann::json score_case(const GlobalOptions& g, const LabelledCase& c, const ScoreOptions& options);

/// The summary figures over rows.
nlohmann::json summarise(const std::vector<nlohmann::json>& rows);

/// The summary as text (accuracy, false alarms, time, DQI, confusion), each line indented by `indent`.
void print_summary(const nlohmann::json& summary, const std::string& indent = "");

}  // namespace cann_debug::cli
