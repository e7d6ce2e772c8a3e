// `cann-debug stats PATH... [--json]`: for every file (or folder) the format, the reader that reads it, and
// what a user wants to know first: counts by kind, ranks, steps, time span and, for traces, Holistic Trace
// Analysis' metrics per rank (the hta_metrics extractor fed by the chrome_trace reader).
#include "cmd_stats.hpp"

#include <fmt/format.h>

#include "stats_inputs.hpp"
#include "stats_reading.hpp"
#include "stats_render.hpp"

namespace cann_debug::cli {

namespace {

struct StatsArgs {
  std::vector<std::string> paths;
  bool json = false;
  bool hta_drop_last_step = false;
};

// Exit code (docs/cli.md): a reader or hta_metrics that failed is a component failure (1), an input
// that could not be used at all (missing, no reader claims it) is "not found" (4); 1 wins over 4.
int exit_code_of(const std::vector<stats::InputStats>& inputs) {
  bool failed = false, not_found = false;
  for (const auto& in : inputs) {
    if (!in.error.empty()) not_found = true;
    for (const auto& f : in.files)
      if (f.status != stats::ReadStatus::kOk) failed = true;
    if (in.hta && !in.hta->error.empty()) failed = true;
  }
  return failed ? kRunFailed : not_found ? kNotFound : kOk;
}

void report_errors(const std::vector<stats::InputStats>& inputs) {
  for (const auto& in : inputs) {
    if (!in.error.empty()) fmt::print(stderr, "error: {}\n", in.error);
    for (const auto& f : in.files) {
      if (f.status == stats::ReadStatus::kPartial)
        fmt::print(stderr, "error: {} (reader {}; what was read before is reported, marked partial)\n",
                   f.error, f.reader);
      else if (f.status == stats::ReadStatus::kFailed)
        fmt::print(stderr, "error: {} (reader {})\n", f.error, f.reader);
    }
    if (in.hta && !in.hta->error.empty()) fmt::print(stderr, "error: {}: {}\n", in.argument, in.hta->error);
  }
}

}  // namespace

Verb register_stats(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand(
      "stats",
      "What is in profiler traces, logs and metric files: the reader that reads each, counts by kind, ranks, "
      "steps, time span and, for traces, HTA's metrics per rank");
  auto a = std::make_shared<StatsArgs>();
  cmd->add_option("paths", a->paths,
                  "Files or folders (a folder: every file in it a reader claims, or the whole folder when a "
                  "reader claims it, e.g. an Ascend profiler output tree)")
      ->required();
  cmd->add_flag("--json", a->json, "One JSON document on stdout (docs/stats-json.md)");
  cmd->add_flag("--hta-drop-last-step", a->hta_drop_last_step,
                "Drop the last ProfilerStep before the HTA metrics, as HTA does by default "
                "(include_last_profiler_step=False)");
  return {cmd, [&g, a] {
            auto registry = load_registry(g);
            stats::CollectOptions options;
            options.include_last_profiler_step = !a->hta_drop_last_step;
            std::vector<stats::InputStats> inputs;
            for (const auto& p : a->paths) inputs.push_back(stats::collect_input(*registry, p, options));
            const int rc = exit_code_of(inputs);
            report_errors(inputs);
            if (a->json)
              fmt::print("{}\n", stats::to_json(inputs, options, rc)
                                     .dump(2, ' ', false, nlohmann::json::error_handler_t::replace));
            else
              stats::print_text(stdout, inputs);
            return rc;
          }};
}

}  // namespace cann_debug::cli
