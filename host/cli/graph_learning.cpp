#include "graph_learning.hpp"

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "pipeline_builder.hpp"
#include "scenario_pipeline.hpp"

namespace cann_debug::cli {

namespace fs = std::filesystem;
using nlohmann::json;

std::map<std::string, json> use_graph(const std::string& graph) {
  std::map<std::string, json> out;
  for (const char* type : {"discretize", "bayes_exact", "bayes_sampling"}) out[type] = json{{"graph", graph}};
  return out;
}

std::string prior_graph_for(const std::string& pipeline, const std::string& scenario) {
  const fs::path candidate = fs::path(pipeline).parent_path() / "graphs" / "priors" / (scenario + ".json");
  std::error_code ec;
  return fs::is_regular_file(candidate, ec) ? candidate.string() : std::string();
}

int collect_labelled_evidence(const GlobalOptions& g, const std::string& pipeline, const std::string& graph,
                              const std::vector<LabelledCase>& cases, const std::string& label,
                              std::vector<LabelledEvidence>& out) {
  std::size_t done = 0;
  for (const auto& c : cases) {
    TapRequest req;
    req.pipeline = pipeline;
    req.input = c.folder;
    req.tap_types = {std::string(Evidence::type_id)};
    req.set_on_type = use_graph(graph);
    EmbeddedRun run;
    const int rc = run_tapped(g, req, run);
    const auto evidence = run.of_type(Evidence::type_id);
    if (rc != kOk || evidence.empty()) {
      fmt::print(stderr, "error: {}: {}\n", c.folder,
                 rc != kOk ? "the pipeline failed on this case" : "the pipeline produced no evidence");
      return rc != kOk ? rc : static_cast<int>(kRunFailed);
    }
    Evidence e = evidence.back()->envelope.as<Evidence>();
    e.soft.erase(label);
    e.hard[label] = c.root_cause;
    json line = e;
    line["_case"] = c.folder;
    out.push_back(std::move(line));
    if (g.verbosity > 0)
      fmt::print(stderr, "[{}/{}] {} ({})\n", ++done, cases.size(), c.folder, c.root_cause);
  }
  return kOk;
}

bool write_labelled_evidence(const std::string& path, const std::vector<LabelledEvidence>& evidence) {
  std::ofstream out(path);
  for (const auto& line : evidence) out << line.dump() << '\n';
  out.flush();
  if (!out) fmt::print(stderr, "error: {}: cannot write\n", path);
  return static_cast<bool>(out);
}

int learn_graph(const GlobalOptions& g, const std::vector<LabelledEvidence>& evidence,
                const LearnOptions& options, json& stats) {
  static int serial = 0;
  const fs::path evidence_path =
      fs::temp_directory_path() / fmt::format("cann-debug-learn-{}-{}.jsonl", ::getpid(), ++serial);
  if (!write_labelled_evidence(evidence_path.string(), evidence)) return kRunFailed;
  const json source = {{"path", evidence_path.string()}};
  const json learner = {{"graph", options.graph},
                        {"output", options.output},
                        {"label", options.label},
                        {"prior_strength", options.prior_strength},
                        {"learn_label_prior", options.learn_label_prior},
                        {"note", options.note}};
  host::Diagnostics diags;
  auto doc = host::PipelineBuilder("<kb learn>")
                 .add("evidence_source/cases", source)
                 .add("cpt_learn/learn", learner)
                 .link("evidence_source/cases.evidence", "cpt_learn/learn.evidence")
                 .build(diags);
  EmbeddedRun run;
  const int rc = doc ? run_document(g, *doc, diags, {{{"cpt_learn/learn", "stats"}}, {}}, run)
                     : static_cast<int>(kInvalidPipeline);
  const auto captured = run.of_type(JsonMessage::type_id);
  std::error_code ec;
  fs::remove(evidence_path, ec);
  if (rc != kOk) return rc;
  if (captured.empty()) {
    fmt::print(stderr, "error: the learner produced no figures\n");
    return kRunFailed;
  }
  stats = captured.front()->envelope.as<JsonMessage>().value;
  return kOk;
}

}  // namespace cann_debug::cli
