// The console view of `cann-debug diagnose`: the report plugin's model (cann-debug.report/1, the document
// report.json and report.html are written from) rendered as text, with what only the verb knows (how the
// scenario was chosen, where the files went, how long it took) from the diagnose document.
#pragma once

#include <nlohmann/json.hpp>

namespace cann_debug::cli {

/// Prints the text form. `report` is the report model, or null when the pipeline has no report (then the
/// diagnose document's causes, evidence and suggestions are shown, without the report's tables).
void print_diagnosis_text(const nlohmann::json& doc, const nlohmann::json& report);

}  // namespace cann_debug::cli
