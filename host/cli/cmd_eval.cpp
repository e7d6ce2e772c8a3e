// `cann-debug eval --cases DIR`: diagnose every labelled case folder and score the answers (docs/eval.md):
// top-1/top-3 accuracy, false alarms on healthy runs, the confusion table, the median diagnosis time and
// the Debugging Quality Index.
#include <algorithm>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "case_folders.hpp"
#include "cli_common.hpp"
#include "diagnose_run.hpp"

namespace cann_debug::cli {
namespace {

using nlohmann::json;

/// Locate time at which a diagnosis is worth nothing: a minute is as long as it takes to open a
/// dashboard and start reading it by hand (docs/eval.md).
constexpr double kLocateTimeBudgetMs = 60'000.0;

struct EvalArgs {
  std::string cases;
  std::string scenario;  // only these cases ("" = all)
  bool json = false;
};

double median(std::vector<double> v) {
  if (v.empty()) return 0.0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int evaluate(const GlobalOptions& g, const EvalArgs& a) {
  std::vector<LabelledCase> cases;
  std::string problem;
  if (!find_labelled_cases(a.cases, a.scenario, cases, problem)) {
    fmt::print(stderr, "error: {}\n", problem);
    return kNotFound;
  }
  json rows = json::array();
  std::map<std::string, std::map<std::string, int>> confusion;
  std::vector<double> times;
  std::size_t top1 = 0, top3 = 0, healthy_cases = 0, false_alarms = 0, failed = 0;
  double effectiveness = 0.0;
  std::size_t done = 0;
  for (const auto& c : cases) {
    DiagnoseRequest req;
    req.input = c.folder;
    const DiagnoseResult r = diagnose_folder(g, req);
    json row = {{"case", c.folder}, {"label", c.root_cause}, {"scenario", c.scenario}};
    std::vector<std::string> ranked;
    if (r.rc != kOk) {
      ++failed;
      row["error"] = r.error;
      ranked.push_back("error");
    } else {
      for (const auto& rc : r.document["root_causes"]) ranked.push_back(rc.value("id", ""));
      if (ranked.empty()) ranked.push_back(r.document.value("healthy", false) ? "healthy" : "unknown");
      times.push_back(r.document.value("elapsed_ms", 0.0));
      row["elapsed_ms"] = r.document.value("elapsed_ms", 0.0);
      row["routed_to"] = r.document.value("scenario", "");
      row["confidence"] =
          r.document["root_causes"].empty() ? 0.0 : r.document["root_causes"][0].value("confidence", 0.0);
      // A suggestion is effective when one of the first three answers the labelled cause; a healthy run
      // is best served by none.
      const auto& suggestions = r.document["suggestions"];
      double eff = 0.0;
      if (c.root_cause == "healthy") {
        eff = suggestions.empty() ? 1.0 : 0.0;
      } else {
        for (std::size_t i = 0; i < std::min<std::size_t>(3, suggestions.size()); ++i)
          if (suggestions[i].value("root_cause", "") == c.root_cause) eff = 1.0;
      }
      effectiveness += eff;
      row["suggestion_effective"] = eff > 0.0;
    }
    const std::string predicted = ranked.front();
    row["predicted"] = predicted;
    row["ranked"] = ranked;
    if (predicted == c.root_cause) ++top1;
    const auto first_three =
        ranked.begin() + static_cast<std::ptrdiff_t>(std::min<std::size_t>(3, ranked.size()));
    if (std::find(ranked.begin(), first_three, c.root_cause) != first_three) ++top3;
    if (c.root_cause == "healthy") {
      ++healthy_cases;
      if (predicted != "healthy") ++false_alarms;
    }
    ++confusion[c.root_cause][predicted];
    rows.push_back(row);
    ++done;
    if (!a.json)
      fmt::print(stderr, "[{}/{}] {:<40} label {:<26} -> {}{}\n", done, cases.size(), c.folder, c.root_cause,
                 predicted, predicted == c.root_cause ? "" : "   (wrong)");
  }
  const double n = static_cast<double>(cases.size());
  const double acc1 = top1 / n, acc3 = top3 / n;
  const double med = median(times);
  const double t_norm = std::min(1.0, med / kLocateTimeBudgetMs);
  const double eff = effectiveness / n;
  const double dqi = (1.0 - t_norm) * acc1 * eff;
  json summary = {
      {"cases", cases.size()},
      {"failed", failed},
      {"top1_accuracy", acc1},
      {"top3_accuracy", acc3},
      {"healthy_cases", healthy_cases},
      {"false_alarm_rate", healthy_cases ? static_cast<double>(false_alarms) / healthy_cases : 0.0},
      {"median_ms", med},
      {"suggestion_effectiveness", eff},
      {"normalised_locate_time", t_norm},
      {"locate_time_budget_ms", kLocateTimeBudgetMs},
      {"dqi", dqi},
      {"confusion", confusion}};
  if (a.json) {
    fmt::print("{}\n", json{{"summary", summary}, {"cases", rows}}.dump(2));
  } else {
    fmt::print("Cases: {} ({} failed)\n", cases.size(), failed);
    fmt::print("Top-1 accuracy:            {:.1f}%\n", 100 * acc1);
    fmt::print("Top-3 accuracy:            {:.1f}%\n", 100 * acc3);
    fmt::print("False alarms on healthy:   {:.1f}% ({} of {})\n",
               healthy_cases ? 100.0 * false_alarms / healthy_cases : 0.0, false_alarms, healthy_cases);
    fmt::print("Median diagnosis time:     {:.0f} ms\n", med);
    fmt::print("Suggestion effectiveness:  {:.1f}%\n", 100 * eff);
    fmt::print("DQI:                       {:.3f}  = (1 - {:.4f}) x {:.3f} x {:.3f}\n", dqi, t_norm, acc1,
               eff);
    fmt::print("Confusion (label -> predicted):\n");
    for (const auto& [label, row] : confusion) {
      std::string cells;
      for (const auto& [pred, k] : row) cells += fmt::format(" {}={}", pred, k);
      fmt::print("  {:<26}{}\n", label, cells);
    }
  }
  return failed == cases.size() ? static_cast<int>(kRunFailed) : static_cast<int>(kOk);
}

}  // namespace

Verb register_eval(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand(
      "eval",
      "Diagnose every labelled case folder (expected.json) and score the answers: accuracy, false "
      "alarms, confusion, time, DQI");
  auto a = std::make_shared<EvalArgs>();
  cmd->add_option("--cases", a->cases, "Folder of case folders, searched 3 deep")
      ->required()
      ->check(CLI::ExistingDirectory);
  cmd->add_option("--scenario", a->scenario, "Only the cases of this scenario")
      ->check(CLI::IsMember({"training", "inference", "distributed"}));
  cmd->add_flag("--json", a->json, "One JSON document: summary and per-case rows");
  return {cmd, [&g, a] { return evaluate(g, *a); }};
}

}  // namespace cann_debug::cli
