// Explanations on top of any engine: top-k root causes, the most probable propagation path from a cause
// to the observed symptoms, and the leave-one-out influence of each piece of evidence. The exact
// definitions are in docs/bayes.md ("Ranking, paths and evidence influence").
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "cann_debug/causal_graph/network.hpp"
#include "inference.hpp"

namespace cann_debug::bayes {

/// The "nothing wrong" state of every variable: the one the graph declares (`default_state`); else the
/// first state named healthy, normal, nominal, ok, none, no, false, absent, off or negative (any case);
/// else the state with the largest prior probability (lowest index on ties).
std::vector<int> default_states(const Network& net, const InferenceResult& prior);

/// Variables without parents, ascending.
std::vector<int> parentless_variables(const Network& net);

struct StateRef {
  int variable = -1;
  int state = -1;
  friend bool operator==(const StateRef&, const StateRef&) = default;
};

struct RankedState {
  StateRef cause;
  double probability = 0.0;    // P(cause | evidence)
  std::vector<StateRef> path;  // cause, mechanisms..., observed symptom
};

struct EvidenceInfluence {
  int variable = -1;
  double log_ratio = 0.0;  // log P(top cause | e) - log P(top cause | e without this variable)
};

struct ExplainOptions {
  std::vector<int> roots;  // candidate causes; empty = parentless variables
  std::size_t top_k = 3;
  bool paths = true;
  bool evidence_ranking = true;
};

struct Explanation {
  std::vector<RankedState> causes;           // at most top_k, most probable first
  std::vector<EvidenceInfluence> influence;  // by |log_ratio|, largest first
  std::size_t propagations = 0;              // extra engine runs made
};

Explanation explain(const Network& net, const std::vector<int>& defaults, const InferenceFn& infer,
                    const Likelihoods& evidence, const InferenceResult& posterior,
                    const ExplainOptions& options);

/// The path of one cause given the marginals with the cause clamped (`clamped` = infer(evidence + cause)).
/// Observed targets reached by equally good routes are told apart by how much more likely the cause makes
/// their evidence than `baseline` does (infer(evidence + the cause variable in its default state)); without
/// a baseline, by name.
std::vector<StateRef> propagation_path(const Network& net, const std::vector<int>& defaults,
                                       const Likelihoods& evidence, StateRef cause,
                                       const InferenceResult& clamped,
                                       const InferenceResult* baseline = nullptr);

}  // namespace cann_debug::bayes
