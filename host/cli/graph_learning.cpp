#include "graph_learning.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

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

namespace {

/// The hidden variables of a JSON graph (those read off the label, `from_label`) and their states; empty
/// for a graph that is not JSON or has none.
std::map<std::string, std::vector<std::string>> hidden_variables_of(const std::string& graph) {
  std::map<std::string, std::vector<std::string>> out;
  std::ifstream in(graph);
  const json doc = json::parse(in, nullptr, false);
  if (doc.is_discarded() || !doc.contains("variables") || !doc["variables"].is_array()) return out;
  for (const auto& var : doc["variables"]) {
    if (!var.is_object() || !var.contains("from_label") || !var.contains("name") ||
        !var["name"].is_string() || !var.contains("states") || !var["states"].is_array())
      continue;
    // A state that is not a name is left out: the learner reports a malformed graph when it loads it.
    std::vector<std::string> states;
    for (const auto& s : var["states"])
      if (s.is_string()) states.push_back(s.get<std::string>());
    out[var["name"].get<std::string>()] = std::move(states);
  }
  return out;
}

/// Adds the states a case names for the graph's hidden variables as hard evidence (learning keeps them
/// rather than read the label's default off); a name the graph has no hidden variable for is another
/// graph's. Returns "" or what is wrong.
std::string add_named_hidden_states(const LabelledCase& c,
                                    const std::map<std::string, std::vector<std::string>>& hidden,
                                    Evidence& e) {
  for (const auto& [name, state] : c.hidden) {
    const auto it = hidden.find(name);
    if (it == hidden.end()) continue;
    if (std::find(it->second.begin(), it->second.end(), state) == it->second.end())
      return fmt::format("expected.json: hidden.{}: '{}' is not a state of '{}' (expected one of: {})", name,
                         state, name, fmt::join(it->second, ", "));
    e.soft.erase(name);
    e.hard[name] = state;
  }
  return "";
}

}  // namespace

int collect_labelled_evidence(const GlobalOptions& g, const std::string& pipeline, const std::string& graph,
                              const std::vector<LabelledCase>& cases, const std::string& label,
                              std::vector<LabelledEvidence>& out) {
  std::size_t done = 0;
  const auto hidden = hidden_variables_of(graph);
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
    if (const std::string problem = add_named_hidden_states(c, hidden, e); !problem.empty()) {
      fmt::print(stderr, "error: {}: {}\n", c.folder, problem);
      return kUsage;
    }
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
