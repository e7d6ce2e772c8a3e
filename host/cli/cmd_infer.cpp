// `cann-debug infer --graph G --evidence '{...}'`: one query of a Bayesian network, run through the same
// plugins a diagnosis pipeline uses (evidence_source -> bayes_exact|bayes_sampling, the posterior tapped).
#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "cli_common.hpp"
#include "infer_input.hpp"
#include "pipeline_builder.hpp"

namespace cann_debug::cli {

namespace {

struct InferArgs {
  std::string graph;
  std::string evidence = "{}";
  std::string soft = "{}";
  std::size_t top_k = 0;
  std::vector<std::string> roots;
  std::string engine = "exact";
  std::int64_t samples = 100000;
  std::int64_t seed = 1;
  bool json = false;
};

// evidence_source -> bayes_exact | bayes_sampling, with the engine's posterior and stats tapped.
std::optional<host::PipelineDocument> pipeline_of(const InferArgs& a, const nlohmann::json& hard,
                                                  const nlohmann::json& soft, const std::string& engine_id,
                                                  host::Diagnostics& diags) {
  nlohmann::json engine = {{"graph", a.graph}, {"top_k", a.top_k == 0 ? 3 : a.top_k}};
  if (!a.roots.empty()) engine["roots"] = a.roots;
  if (a.engine == "sampling") {
    engine["samples"] = a.samples;
    engine["seed"] = a.seed;
  }
  return host::PipelineBuilder("<infer>")
      .add("evidence_source/query", {{"hard", hard}, {"soft", soft}})
      .add(engine_id, engine)
      .link("evidence_source/query.evidence", engine_id + ".evidence")
      .build(diags);
}

bool parse_object(const std::string& text, const char* flag, nlohmann::json& out) {
  try {
    out = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    fmt::print(stderr, "error: {}: not JSON at byte {}: {}\n", flag, e.byte, e.what());
    return false;
  }
  if (!out.is_object()) {
    fmt::print(stderr, "error: {}: expected a JSON object like {{\"var\": \"state\"}}\n", flag);
    return false;
  }
  return true;
}

void print_text(const Posterior& p, const nlohmann::json& hard) {
  if (!p.top_causes.empty()) {
    fmt::print("Root causes:\n");
    for (const auto& c : p.top_causes)
      fmt::print("  {:<40} {:>8.4f}   path: {}\n", c.id, c.probability, fmt::join(c.path, " -> "));
  }
  if (!p.evidence_ranking.empty()) {
    fmt::print("Evidence ranking (change of the top cause's log posterior when left out):\n");
    for (const auto& [var, score] : p.evidence_ranking) fmt::print("  {:<40} {:>+9.4f}\n", var, score);
  }
  fmt::print("Posteriors:\n");
  for (const auto& [var, states] : p.marginals) {
    if (hard.contains(var)) continue;
    std::string row;
    for (const auto& [state, prob] : states) row += fmt::format("  {}={:.4f}", state, prob);
    fmt::print("  {:<28}{}\n", var, row);
  }
}

}  // namespace

Verb register_infer(CLI::App& app, const GlobalOptions& g) {
  auto* cmd =
      app.add_subcommand("infer",
                         "Posterior marginals, ranked root causes and propagation paths of a Bayesian "
                         "network given evidence");
  auto a = std::make_shared<InferArgs>();
  auto in = std::make_shared<InferInputArgs>();
  cmd->add_option("--graph", a->graph,
                  "Causal graph: .json (docs/bayes.md) or .bif (with --input: replaces the pipeline's graph)")
      ->check(CLI::ExistingFile);
  auto* input_opt =
      cmd->add_option("--input", in->input,
                      "A run's folder (logs, traces, host metrics): run the scenario pipeline on "
                      "it instead of taking --evidence")
          ->check(CLI::ExistingDirectory);
  cmd->add_option("--scenario", in->scenario, "With --input: training, inference or distributed")
      ->check(CLI::IsMember({"training", "inference", "distributed"}))
      ->needs(input_opt);
  cmd->add_option("--pipeline", in->pipeline,
                  "With --input: the pipeline (default pipelines/<scenario>.yaml)")
      ->needs(input_opt)
      ->check(CLI::ExistingFile);
  auto* evidence_opt =
      cmd->add_option("--evidence", a->evidence,
                      "Hard evidence as JSON: '{\"var\": \"state\", ...}'; with --input, a flag: list the "
                      "supporting evidence")
          ->expected(0, 1);
  cmd->add_option("--soft", a->soft, "Soft evidence as JSON: '{\"var\": {\"s1\": 0.7, \"s2\": 0.3}}'");
  cmd->add_option("--top-k", a->top_k, "Rank this many root causes (default 3)");
  cmd->add_option("--roots", a->roots, "Root-cause variables (default: every variable without parents)")
      ->delimiter(',');
  cmd->add_option("--engine", a->engine, "exact (junction tree) or sampling (likelihood weighting)")
      ->check(CLI::IsMember({"exact", "sampling"}));
  cmd->add_option("--samples", a->samples, "Samples for --engine sampling");
  cmd->add_option("--seed", a->seed, "Random seed for --engine sampling");
  cmd->add_flag("--json", a->json,
                "One JSON document: {\"posteriors\": {var: {state: p}}, \"top_causes\": ...}");
  return {cmd, [&g, a, in, input_opt, evidence_opt] {
            if (input_opt->count() > 0) {
              if (in->scenario.empty()) {
                fmt::print(stderr, "error: --input needs --scenario training|inference|distributed\n");
                return static_cast<int>(kUsage);
              }
              in->graph = a->graph;
              in->top_k = a->top_k == 0 ? 3 : a->top_k;
              in->evidence = evidence_opt->count() > 0;
              in->json = a->json;
              return infer_input(g, *in);
            }
            if (a->graph.empty()) {
              fmt::print(stderr, "error: infer needs --graph FILE (with --evidence) or --input DIR\n");
              return static_cast<int>(kUsage);
            }
            if (a->evidence.empty()) a->evidence = "{}";
            nlohmann::json hard, soft;
            if (!parse_object(a->evidence, "--evidence", hard) || !parse_object(a->soft, "--soft", soft))
              return static_cast<int>(kUsage);
            const std::string engine_id =
                std::string(a->engine == "sampling" ? "bayes_sampling" : "bayes_exact") + "/engine";
            host::Diagnostics diags;
            auto doc = pipeline_of(*a, hard, soft, engine_id, diags);
            EmbeddedRun run;
            const int rc = doc ? run_document(g, *doc, diags,
                                              {{{engine_id, "posterior"}, {engine_id, "stats"}}, {}}, run)
                               : static_cast<int>(kInvalidPipeline);
            if (rc != kOk) return rc;
            const auto posteriors = run.of_type(Posterior::type_id);
            const auto stats = run.of_type(JsonMessage::type_id);
            if (posteriors.empty()) {
              fmt::print(stderr, "error: the engine produced no posterior\n");
              return static_cast<int>(kRunFailed);
            }
            const Posterior& p = posteriors.front()->envelope.as<Posterior>();
            if (!a->json) {
              print_text(p, hard);
              return static_cast<int>(kOk);
            }
            nlohmann::json out = nlohmann::json::object();
            nlohmann::json marginals = nlohmann::json::object();
            for (const auto& [var, states] : p.marginals)
              if (!hard.contains(var)) marginals[var] = states;
            out["posteriors"] = marginals;
            nlohmann::json full = p;
            out["top_causes"] = full["top_causes"];
            out["evidence_ranking"] = full["evidence_ranking"];
            out["evidence"] = {{"hard", hard}, {"soft", soft}};
            if (!stats.empty()) out["stats"] = stats.front()->envelope.as<JsonMessage>().value;
            fmt::print("{}\n", out.dump(2));
            return static_cast<int>(kOk);
          }};
}

}  // namespace cann_debug::cli
