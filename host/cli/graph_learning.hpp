// Learning a causal graph's tables from labelled cases, shared by `kb learn` and `eval --leave-out`: each
// case runs through its scenario pipeline up to the discretised evidence (with the graph's thresholds), the
// label is added as hard evidence on the root variable, and the bayes package's cpt_learn component counts,
// smooths and writes the learnt graph.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "case_folders.hpp"
#include "cli_common.hpp"

namespace cann_debug::cli {

/// The labelled evidence of one case: the evidence/1 JSON with the label as hard evidence, `_case` = folder.
using LabelledEvidence = nlohmann::json;

/// Runs `pipeline` on every case with `graph` as the discretisation and engine graph and returns one
/// labelled evidence per case (in order). Prints the failing case and returns its exit code on failure.
int collect_labelled_evidence(const GlobalOptions& g, const std::string& pipeline, const std::string& graph,
                              const std::vector<LabelledCase>& cases, const std::string& label,
                              std::vector<LabelledEvidence>& out);

/// Writes the evidence as JSON lines (what `evidence_source` replays); prints the file and returns false
/// when it cannot be written.
bool write_labelled_evidence(const std::string& path, const std::vector<LabelledEvidence>& evidence);

struct LearnOptions {
  std::string graph;   // structure, thresholds and prior tables
  std::string output;  // where the learnt graph is written
  std::string label = "root_cause";
  double prior_strength = 2.0;
  bool learn_label_prior = false;
  std::string note;
};

/// Learns the tables from `evidence` (cpt_learn) and writes `options.output`; `stats` gets the learner's
/// figures (cases, labels, leave-one-out). Returns kOk or the run's exit code.
int learn_graph(const GlobalOptions& g, const std::vector<LabelledEvidence>& evidence,
                const LearnOptions& options, nlohmann::json& stats);

/// The prior graph (pipelines' graphs/priors/<scenario>.json) beside a scenario pipeline, or "".
std::string prior_graph_for(const std::string& pipeline, const std::string& scenario);

/// Component option overrides that make every graph-reading component of a scenario pipeline use `graph`.
std::map<std::string, nlohmann::json> use_graph(const std::string& graph);

}  // namespace cann_debug::cli
