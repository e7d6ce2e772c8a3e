// `cann-debug eval --cases DIR`: diagnose every labelled case folder and score the answers
// (docs/diagnose.md): top-1/top-3 accuracy, false alarms on healthy runs, the confusion table, the median
// diagnosis time and the Debugging Quality Index. With --leave-out AXIS or --learn-from DIR it measures
// generalisation instead (eval_leave_out.hpp): tables learnt without the family that is scored.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "case_folders.hpp"
#include "cli_common.hpp"
#include "eval_leave_out.hpp"
#include "eval_scoring.hpp"

namespace cann_debug::cli {
namespace {

using nlohmann::json;

struct EvalArgs {
  LeaveOutArgs leave_out;  // cases, scenario, json, signals_only also apply to a plain eval
};

int evaluate(const GlobalOptions& g, const EvalArgs& e) {
  const LeaveOutArgs& a = e.leave_out;
  if (!a.axes.empty() || !a.learn_from.empty()) return evaluate_leave_out(g, a);
  std::vector<LabelledCase> cases;
  std::string problem;
  if (!find_labelled_cases(a.cases, a.scenario, cases, problem)) {
    fmt::print(stderr, "error: {}\n", problem);
    return kNotFound;
  }
  ScoreOptions options;
  options.signals_only = a.signals_only;
  std::vector<json> rows;
  std::size_t failed = 0;
  for (const auto& c : cases) {
    json row = score_case(g, c, options);
    if (row.contains("error")) ++failed;
    if (!a.json)
      fmt::print(stderr, "[{}/{}] {:<40} label {:<26} -> {}{}\n", rows.size() + 1, cases.size(), c.folder,
                 c.root_cause, row["predicted"].get<std::string>(),
                 row["predicted"] == c.root_cause ? "" : "   (wrong)");
    rows.push_back(std::move(row));
  }
  const json summary = summarise(rows);
  if (a.json)
    fmt::print("{}\n", json{{"summary", summary}, {"cases", rows}}.dump(2));
  else
    print_summary(summary);
  return failed == cases.size() ? static_cast<int>(kRunFailed) : static_cast<int>(kOk);
}

}  // namespace

Verb register_eval(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand(
      "eval",
      "Diagnose every labelled case folder (expected.json) and score the answers: accuracy, false "
      "alarms, confusion, time, DQI; with --leave-out, accuracy on families of runs never learnt from");
  auto e = std::make_shared<EvalArgs>();
  LeaveOutArgs& a = e->leave_out;
  cmd->add_option("--cases", a.cases, "Folder of case folders, searched 3 deep")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--scenario", a.scenario, "Only the cases of this scenario")
      ->check(CLI::IsMember({"training", "inference", "distributed"}));
  cmd->add_option("--leave-out", a.axes,
                  "Axis to leave out family by family (repeatable; 'all' = every axis in the cases' "
                  "expected.json variant): tables learnt without one value of the axis, scored on exactly "
                  "those cases. An axis is a dotted key of expected.json's variant or of config.json "
                  "(optimizer, model, data_order, optimizer.name, ...)");
  cmd->add_option("--learn-from", a.learn_from,
                  "Learn the tables on this folder's cases and score every case of --cases with them")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--signals-only", a.signals_only,
                "Diagnose each case without its config.json (logs, traces and host metrics only)");
  cmd->add_option("--prior-strength", a.prior_strength,
                  "Dirichlet prior weight per table row when learning folds (default 2)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_flag("--json", a.json, "One JSON document: summary (or per-axis reports) and per-case rows");
  return {cmd, [&g, e] { return evaluate(g, *e); }};
}

}  // namespace cann_debug::cli
