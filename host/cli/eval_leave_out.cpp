#include "eval_leave_out.hpp"

#include <unistd.h>

#include <filesystem>
#include <map>
#include <set>

#include <fmt/format.h>

#include "case_folders.hpp"
#include "eval_scoring.hpp"
#include "graph_learning.hpp"
#include "scenario_pipeline.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// Variant keys that describe where a run came from rather than what it is.
bool is_bookkeeping_axis(const std::string& key) {
  return key == "matrix";
}

struct ScenarioModel {
  std::string pipeline;
  std::string prior_graph;
  std::vector<LabelledCase> learn_pool;
  std::vector<LabelledEvidence> evidence;  // one per learn_pool case
};

int prepare_scenario(const GlobalOptions& g, const std::string& scenario, std::vector<LabelledCase> pool,
                     ScenarioModel& out) {
  const auto pipeline = find_scenario_pipeline(scenario);
  if (!pipeline) {
    fmt::print(stderr, "error: no pipeline '{}.yaml' in {}\n", scenario,
               fmt::join(pipeline_search_path(), ", "));
    return kNotFound;
  }
  out.pipeline = *pipeline;
  out.prior_graph = prior_graph_for(out.pipeline, scenario);
  if (out.prior_graph.empty()) {
    fmt::print(stderr, "error: no prior graph graphs/priors/{}.json beside {}\n", scenario, out.pipeline);
    return kNotFound;
  }
  out.learn_pool = std::move(pool);
  fmt::print(stderr, "eval: {} evidence of {} cases\n", scenario, out.learn_pool.size());
  return collect_labelled_evidence(g, out.pipeline, out.prior_graph, out.learn_pool, "root_cause",
                                   out.evidence);
}

/// Learns a fold graph from the evidence of the pool cases `keep` says to keep; "" on failure.
std::string learn_fold(const GlobalOptions& g, const ScenarioModel& m, const std::vector<bool>& keep,
                       double prior_strength, const std::string& what) {
  static int serial = 0;
  std::vector<LabelledEvidence> train;
  for (std::size_t i = 0; i < m.evidence.size(); ++i)
    if (keep[i]) train.push_back(m.evidence[i]);
  if (train.empty()) return "";
  LearnOptions options;
  options.graph = m.prior_graph;
  options.output =
      (fs::temp_directory_path() / fmt::format("cann-debug-fold-{}-{}.json", ::getpid(), ++serial)).string();
  options.prior_strength = prior_strength;
  options.note = what;
  json stats;
  if (learn_graph(g, train, options, stats) != kOk) return "";
  return options.output;
}

void print_axis(const json& report) {
  const json& pooled = report["pooled"];
  fmt::print("Axis {}: {} held-out cases, top-1 {:.1f}%, top-3 {:.1f}%, false alarms {:.1f}% ({} of {})\n",
             report["axis"].get<std::string>(), pooled["cases"].get<std::size_t>(),
             100 * pooled["top1_accuracy"].get<double>(), 100 * pooled["top3_accuracy"].get<double>(),
             100 * pooled["false_alarm_rate"].get<double>(), pooled["false_alarms"].get<std::size_t>(),
             pooled["healthy_cases"].get<std::size_t>());
  for (const auto& f : report["families"])
    fmt::print("  {:<12} {:<28} {:>4} cases  top-1 {:5.1f}%  top-3 {:5.1f}%  false alarms {}/{}\n",
               f["scenario"].get<std::string>(), f["value"].get<std::string>(), f["cases"].get<std::size_t>(),
               100 * f["top1_accuracy"].get<double>(), 100 * f["top3_accuracy"].get<double>(),
               f["false_alarms"].get<std::size_t>(), f["healthy_cases"].get<std::size_t>());
  if (report.contains("worst_family"))
    fmt::print("  worst family: {} {} (top-1 {:.1f}%)\n",
               report["worst_family"]["scenario"].get<std::string>(),
               report["worst_family"]["value"].get<std::string>(),
               100 * report["worst_family"]["top1_accuracy"].get<double>());
  std::map<std::string, std::pair<int, int>> per_cause;  // label -> (right, all)
  for (const auto& [label, row] : pooled["confusion"].items())
    for (const auto& [pred, k] : row.items()) {
      per_cause[label].second += k.get<int>();
      if (pred == label) per_cause[label].first += k.get<int>();
    }
  std::string causes;
  for (const auto& [label, rw] : per_cause) causes += fmt::format(" {}={}/{}", label, rw.first, rw.second);
  fmt::print("  per cause (top-1 right/held out):{}\n", causes);
}

}  // namespace

json axis_report(const std::string& axis, const std::vector<json>& rows) {
  std::map<std::pair<std::string, std::string>, std::vector<json>> by_family;
  for (const auto& r : rows)
    by_family[{r["scenario"].get<std::string>(), r["family"].get<std::string>()}].push_back(r);
  json families = json::array();
  json worst;
  for (const auto& [key, family_rows] : by_family) {
    json s = summarise(family_rows);
    json f = {{"scenario", key.first},
              {"value", key.second},
              {"cases", s["cases"]},
              {"top1_accuracy", s["top1_accuracy"]},
              {"top3_accuracy", s["top3_accuracy"]},
              {"healthy_cases", s["healthy_cases"]},
              {"false_alarms", s["false_alarms"]},
              {"false_alarm_rate", s["false_alarm_rate"]},
              {"confusion", s["confusion"]}};
    if (worst.is_null() || f["top1_accuracy"].get<double>() < worst["top1_accuracy"].get<double>()) worst = f;
    families.push_back(std::move(f));
  }
  json report = {{"axis", axis}, {"families", families}, {"pooled", summarise(rows)}};
  if (!worst.is_null()) report["worst_family"] = worst;
  return report;
}

int evaluate_leave_out(const GlobalOptions& g, const LeaveOutArgs& a) {
  std::vector<LabelledCase> cases;
  std::string problem;
  if (!find_labelled_cases(a.cases, a.scenario, cases, problem)) {
    fmt::print(stderr, "error: {}\n", problem);
    return kNotFound;
  }
  std::vector<LabelledCase> learn_cases;
  if (!a.learn_from.empty() && !find_labelled_cases(a.learn_from, a.scenario, learn_cases, problem)) {
    fmt::print(stderr, "error: --learn-from: {}\n", problem);
    return kNotFound;
  }
  std::map<std::string, std::vector<LabelledCase>> by_scenario, learn_by_scenario;
  for (const auto& c : cases) by_scenario[c.scenario].push_back(c);
  for (const auto& c : learn_cases) learn_by_scenario[c.scenario].push_back(c);

  std::vector<std::string> axes = a.axes;
  if (!a.learn_from.empty()) {
    axes = {"corpus"};
  } else if (std::find(axes.begin(), axes.end(), "all") != axes.end()) {
    // The matrix' own axes when the cases came from scripts/make-cases.py (variant keys "matrix.<axis>"):
    // a workload's variant also holds per-run figures (a resolved rate, a request count) that are not axes.
    std::set<std::string> matrix_axes, other;
    for (const auto& c : cases)
      for (const auto& [k, v] : c.variant.items()) {
        if (k.starts_with("matrix."))
          matrix_axes.insert(k);
        else if (!is_bookkeeping_axis(k))
          other.insert(k);
      }
    const auto& found = matrix_axes.empty() ? other : matrix_axes;
    axes.assign(found.begin(), found.end());
  }

  std::map<std::string, ScenarioModel> models;
  for (const auto& [scenario, list] : by_scenario) {
    if (!a.learn_from.empty() && !learn_by_scenario.contains(scenario)) {
      fmt::print(stderr, "eval: --learn-from has no {} case: its {} cases are not scored\n", scenario,
                 list.size());
      continue;
    }
    ScenarioModel m;
    if (int rc = prepare_scenario(g, scenario, a.learn_from.empty() ? list : learn_by_scenario[scenario], m);
        rc != kOk)
      return rc;
    models.emplace(scenario, std::move(m));
  }

  ScoreOptions score;
  score.signals_only = a.signals_only;
  json reports = json::array();
  json all_rows = json::array();
  std::size_t failed = 0;
  for (const auto& axis : axes) {
    std::vector<json> rows;
    for (const auto& [scenario, m] : models) {
      const auto& test_pool = by_scenario[scenario];
      // Families: the values of the axis among the scored cases; cases without the axis are always learnt.
      std::map<std::string, std::vector<const LabelledCase*>> families;
      if (axis == "corpus") {
        for (const auto& c : test_pool) families[a.cases].push_back(&c);
      } else {
        for (const auto& c : test_pool)
          if (auto v = case_axis_value(c, axis); !v.empty()) families[v].push_back(&c);
        if (families.size() < 2) {
          if (!families.empty())
            fmt::print(stderr, "eval: axis {} has one value in the {} cases: nothing to leave out\n", axis,
                       scenario);
          continue;
        }
      }
      // Each learnt case's value of the axis, read once (it may come from its config.json).
      std::vector<std::string> pool_values;
      if (axis != "corpus")
        for (const auto& c : m.learn_pool) pool_values.push_back(case_axis_value(c, axis));
      for (const auto& [value, members] : families) {
        std::vector<bool> keep(m.learn_pool.size(), true);
        for (std::size_t i = 0; i < pool_values.size(); ++i) keep[i] = pool_values[i] != value;
        const std::string fold =
            learn_fold(g, m, keep, a.prior_strength,
                       fmt::format("eval fold: {} cases without {}={}", scenario, axis, value));
        if (fold.empty()) {
          fmt::print(stderr, "error: {} {}={}: learning the fold's tables failed\n", scenario, axis, value);
          return kRunFailed;
        }
        score.set_on_type = use_graph(fold);
        std::size_t right = 0;
        for (const auto* c : members) {
          json row = score_case(g, *c, score);
          row["axis"] = axis;
          row["family"] = value;
          if (row.contains("error")) ++failed;
          if (row["predicted"] == c->root_cause) ++right;
          rows.push_back(row);
          all_rows.push_back(row);
        }
        std::error_code ec;
        fs::remove(fold, ec);
        fmt::print(stderr, "eval: {} {}={}: learnt on {}, {}/{} right\n", scenario, axis, value,
                   std::count(keep.begin(), keep.end(), true), right, members.size());
      }
    }
    if (rows.empty()) continue;
    json report = axis_report(axis, rows);
    if (!a.json) print_axis(report);
    reports.push_back(std::move(report));
  }
  if (reports.empty()) {
    fmt::print(stderr, "error: no axis had two or more values to leave out ({})\n", fmt::join(axes, ", "));
    return kNotFound;
  }
  json worst;
  for (const auto& r : reports)
    if (r.contains("worst_family") && (worst.is_null() || r["worst_family"]["top1_accuracy"].get<double>() <
                                                              worst["family"]["top1_accuracy"].get<double>()))
      worst = {{"axis", r["axis"]}, {"family", r["worst_family"]}};
  if (a.json) {
    fmt::print(
        "{}\n",
        json{{"axes", reports}, {"worst", worst}, {"signals_only", a.signals_only}, {"cases", all_rows}}.dump(
            2));
  } else if (!worst.is_null()) {
    fmt::print("Worst family over all axes: {}={} ({}), top-1 {:.1f}%\n", worst["axis"].get<std::string>(),
               worst["family"]["value"].get<std::string>(), worst["family"]["scenario"].get<std::string>(),
               100 * worst["family"]["top1_accuracy"].get<double>());
  }
  // As a plain eval: the run failed when no scored case could be diagnosed.
  return failed == all_rows.size() ? static_cast<int>(kRunFailed) : static_cast<int>(kOk);
}

}  // namespace cann_debug::cli
