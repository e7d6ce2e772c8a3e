// `cann-debug diagnose --input DIR`: the root cause of a run, its evidence and what to do about it.
#include <fmt/format.h>

#include "cli_common.hpp"
#include "diagnose_run.hpp"
#include "diagnosis_console.hpp"
#include "interrupt.hpp"
#include "online_diagnosis.hpp"

namespace cann_debug::cli {

Verb register_diagnose(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand(
      "diagnose",
      "Diagnose a run's folder (logs, traces, host metrics, profiler output): scenario, root cause with "
      "confidence, evidence, suggestions");
  auto r = std::make_shared<DiagnoseRequest>();
  auto json_out = std::make_shared<bool>(false);
  auto follow = std::make_shared<std::string>();
  auto idle_timeout = std::make_shared<std::string>("60s");
  cmd->add_option("--input", r->input, "The run's folder, or one file of it (a training log)")
      ->check(CLI::ExistingPath);
  cmd->add_option("--follow", *follow,
                  "Diagnose a run folder while `collect` still writes it: each time an anomaly window of its "
                  "recording closes, print the diagnosis of that window and append it to "
                  "RUN_DIR/diagnoses.jsonl; ends when the recording is closed (docs/diagnose.md)")
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--idle-timeout", *idle_timeout,
                  "--follow: stop when the recording has not grown for this long (0 = until it is closed)")
      ->capture_default_str();
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
  return {
      cmd, [&g, r, json_out, follow, idle_timeout] {
        if (follow->empty() == r->input.empty()) {
          fmt::print(stderr,
                     "error: give --input RUN (a finished run) or --follow RUN_DIR (one being written)\n");
          return static_cast<int>(kUsage);
        }
        if (!follow->empty()) {
          const auto idle = parse_duration_ns(*idle_timeout);
          if (!idle || *idle < 0) {
            fmt::print(stderr, "error: --idle-timeout: expected a duration like 60s or 0, got '{}'\n",
                       *idle_timeout);
            return static_cast<int>(kUsage);
          }
          FollowRequest f;
          f.run_dir = *follow;
          f.scenario = r->scenario;
          f.kb_outcomes = r->kb_outcomes;
          f.json_lines = *json_out;
          f.idle_timeout_ns = *idle;
          InterruptScope interrupt;
          f.interrupt = interrupt.level();
          f.interrupt_fd = interrupt.wake_fd();
          if (!*json_out)
            fmt::print(stderr, "follow: {}: waiting for anomaly windows of {}/recording.cdr (Ctrl-C stops)\n",
                       *follow, *follow);
          const FollowResult result = follow_run(g, f);
          if (!result.error.empty()) fmt::print(stderr, "error: {}\n", result.error);
          const auto& s = result.summary;
          const std::string latency = latency_text(s);
          fmt::print(stderr, "follow: {} windows, {} diagnosed{}; {:.2f} s of CPU over {:.1f} s ({:.1f}%)\n",
                     s.value("windows", 0), s.value("diagnosed", 0), latency.empty() ? "" : "; " + latency,
                     s.value("cpu_s", 0.0), s.value("wall_s", 0.0), 100.0 * s.value("cpu_share", 0.0));
          if (result.rc == kOk && interrupt.level()->load() > 0) return static_cast<int>(kInterrupted);
          return result.rc;
        }
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
