// Posterior -> ranked root causes with their propagation paths, evidence and an explanation in words.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::scenario {

struct RankingOptions {
  std::string root = "root_cause";        // the variable whose states are the causes
  std::string healthy_state = "healthy";  // its "nothing wrong" state
  double min_confidence = 0.05;           // causes below are not listed (the most probable always is)
  std::size_t max_causes = 3;
};

/// The features of a run by name (find() returns the first one of a name).
struct FeatureIndex {
  std::vector<Feature> all;
  const Feature* find(const std::string& name) const;  // first with this name, any labels
  std::vector<const Feature*> with_prefix(const std::string& prefix) const;
};

/// Root causes sorted by confidence (healthy included as a ranked answer), each non-healthy one with its
/// path, the evidence references of the observed variables on that path, and an explanation naming
/// those variables, their states (with the description the posterior's graph variables give) and the
/// measured values of the features their discretizations read.
std::vector<RootCause> rank_causes(const Posterior& posterior, const Evidence* evidence,
                                   const FeatureIndex& features, const RankingOptions& options);

/// Whether any observed variable was read from a feature the run has (a state the data showed), rather
/// than observed in its absent state because its feature never came. True when the posterior does not
/// list its graph's variables (nothing to tell them apart by).
bool symptom_observed(const Posterior& posterior, const Evidence& evidence, const FeatureIndex& features);

}  // namespace cann_debug::plugins::scenario
