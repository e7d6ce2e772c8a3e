// `cann-debug diagnose --input DIR`: the root cause of a run, its evidence and what to do about it.
#include <fmt/format.h>

#include "cli_common.hpp"
#include "diagnose_run.hpp"
#include "diagnosis_console.hpp"

namespace cann_debug::cli {

Verb register_diagnose(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand(
      "diagnose",
      "Diagnose a run's folder (logs, traces, host metrics, profiler output): scenario, root cause with "
      "confidence, evidence, suggestions");
  auto r = std::make_shared<DiagnoseRequest>();
  auto json_out = std::make_shared<bool>(false);
  cmd->add_option("--input", r->input, "The run's folder, or one file of it (a training log)")
      ->required()
      ->check(CLI::ExistingPath);
  cmd->add_option("--scenario", r->scenario,
                  "auto (default: chosen from the files), training, inference, distributed")
      ->check(CLI::IsMember({"auto", "training", "inference", "distributed"}));
  cmd->add_option("--output", r->output, "Write the reports (JSON, Markdown, HTML) into this folder");
  cmd->add_option("--pipeline", r->pipeline, "Use this pipeline instead of pipelines/<scenario>.yaml")
      ->check(CLI::ExistingFile);
  cmd->add_flag("--json", *json_out, "One JSON document on stdout (docs/diagnose.md)");
  r->kb_outcomes = default_kb_outcomes_path();
  cmd->add_option(
      "--kb-outcomes", r->kb_outcomes,
      "Outcomes `optimize --feedback` measured, quoted as the suggestions' expected gains (default: "
      "$CANN_DEBUG_KB_OUTCOMES, else ~/.local/share/cann-debug/outcomes.json; \"\" = priors only)");
  return {cmd, [&g, r, json_out] {
            r->report_model = !*json_out;  // the console renders the report's model
            const DiagnoseResult result = diagnose_folder(g, *r);
            if (result.rc != kOk) {
              fmt::print(stderr, "error: {}\n", result.error);
              return result.rc;
            }
            if (*json_out)
              fmt::print("{}\n", result.document.dump(2));
            else
              print_diagnosis_text(result.document, result.report);
            return static_cast<int>(kOk);
          }};
}

}  // namespace cann_debug::cli
