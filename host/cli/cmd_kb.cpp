// `cann-debug kb learn --cases DIR --graph G -o G2`: re-estimates a causal graph's probability tables from
// labelled case folders (graph_learning.hpp: evidence per case, the label as hard evidence, cpt_learn) and
// prints the learner's leave-one-out figures.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "case_folders.hpp"
#include "cli_common.hpp"
#include "graph_learning.hpp"
#include "scenario_pipeline.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct LearnArgs {
  std::string cases;
  std::string graph;
  std::string output;
  std::string scenario;
  std::string pipeline;
  std::string label = "root_cause";
  std::string save_evidence;
  double prior_strength = 2.0;
  bool learn_label_prior = false;
  bool json = false;
};

std::string graph_scenario(const std::string& graph) {
  try {
    std::ifstream in(graph);
    auto doc = json::parse(in);
    if (doc.is_object() && doc.contains("name") && doc["name"].is_string()) return doc["name"];
  } catch (const std::exception&) {
  }
  return fs::path(graph).stem().string();
}

void print_text(const json& stats) {
  const auto& loo = stats["leave_one_out"];
  fmt::print("Learnt {} from {} cases -> {}\n", stats.value("graph", "?"), stats["cases"].get<int>(),
             stats.value("output", "?"));
  std::string labels;
  for (const auto& [k, v] : stats["labels"].items()) labels += fmt::format(" {}={}", k, v.get<int>());
  fmt::print("Labels:{}\n", labels);
  fmt::print("Leave-one-out ({} cases, prior strength {}):\n", loo["cases"].get<int>(),
             stats["prior_strength"].get<double>());
  fmt::print("  held-out log-likelihood per case  {:.3f}\n", loo["mean_log_likelihood"].get<double>());
  fmt::print("  mean log P(label | evidence)      {:.3f}\n", loo["mean_log_p_label"].get<double>());
  fmt::print("  top-1 accuracy                    {:.1f}%\n", 100 * loo["top1_accuracy"].get<double>());
  fmt::print("  top-3 accuracy                    {:.1f}%\n", 100 * loo["top3_accuracy"].get<double>());
  fmt::print("Confusion (label -> leave-one-out top-1):\n");
  for (const auto& [truth, row] : loo["confusion"].items()) {
    std::string cells;
    for (const auto& [pred, n] : row.items()) cells += fmt::format(" {}={}", pred, n.get<int>());
    fmt::print("  {:<26}{}\n", truth, cells);
  }
}

int learn(const GlobalOptions& g, const LearnArgs& a) {
  const std::string scenario = a.scenario.empty() ? graph_scenario(a.graph) : a.scenario;
  std::string pipeline = a.pipeline;
  if (pipeline.empty()) {
    auto found = find_scenario_pipeline(scenario);
    if (!found) {
      fmt::print(stderr, "error: no pipeline '{}.yaml' in {} (pass --pipeline FILE)\n", scenario,
                 fmt::join(pipeline_search_path(), ", "));
      return kNotFound;
    }
    pipeline = *found;
  }
  std::vector<LabelledCase> cases;
  std::string problem;
  if (!find_labelled_cases(a.cases, scenario, cases, problem)) {
    fmt::print(stderr, "error: {}\n", problem);
    return kNotFound;
  }

  std::vector<LabelledEvidence> evidence;
  if (int rc = collect_labelled_evidence(g, pipeline, a.graph, cases, a.label, evidence); rc != kOk)
    return rc;
  if (!a.save_evidence.empty() && !write_labelled_evidence(a.save_evidence, evidence)) return kRunFailed;
  LearnOptions options;
  options.graph = a.graph;
  options.output = a.output;
  options.label = a.label;
  options.prior_strength = a.prior_strength;
  options.learn_label_prior = a.learn_label_prior;
  options.note =
      fmt::format("cann-debug kb learn --cases {} --graph {} (scenario {}, pipeline {}, {} cases)", a.cases,
                  a.graph, scenario, fs::path(pipeline).filename().string(), cases.size());
  json figures;
  if (int rc = learn_graph(g, evidence, options, figures); rc != kOk) return rc;
  if (a.json)
    fmt::print("{}\n", figures.dump(2));
  else
    print_text(figures);
  return kOk;
}

}  // namespace

Verb register_kb(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand("kb", "Knowledge base: learn causal-graph tables from labelled cases");
  cmd->require_subcommand(1);
  auto* learn_cmd = cmd->add_subcommand(
      "learn",
      "Re-estimate a causal graph's probability tables from labelled case folders (expected.json) and "
      "print the leave-one-out held-out log-likelihood and accuracy");
  auto a = std::make_shared<LearnArgs>();
  learn_cmd
      ->add_option("--cases", a->cases, "Folder of case folders (each with expected.json), searched 3 deep")
      ->required()
      ->check(CLI::ExistingDirectory);
  learn_cmd
      ->add_option("--graph", a->graph, "The causal graph whose structure and prior tables to use (.json)")
      ->required()
      ->check(CLI::ExistingFile);
  learn_cmd->add_option("-o,--output", a->output, "Where to write the learnt graph (.json)")->required();
  learn_cmd->add_option("--scenario", a->scenario,
                        "Cases of this scenario only, run through pipelines/<scenario>.yaml (default: the "
                        "graph's name)");
  learn_cmd->add_option("--pipeline", a->pipeline, "The pipeline that turns a case into evidence");
  learn_cmd->add_option("--label", a->label, "The root variable that holds the label (default root_cause)");
  learn_cmd
      ->add_option("--prior-strength", a->prior_strength,
                   "Dirichlet prior weight per table row, in cases (default 2)")
      ->check(CLI::NonNegativeNumber);
  learn_cmd->add_flag(
      "--learn-label-prior", a->learn_label_prior,
      "Also learn the label variable's prior from the label counts (default: keep the graph's)");
  learn_cmd->add_option("--save-evidence", a->save_evidence, "Also keep the labelled evidence (JSON lines)");
  learn_cmd->add_flag("--json", a->json, "Print the figures as one JSON document");
  return {cmd, [&g, a] { return learn(g, *a); }};
}

}  // namespace cann_debug::cli
