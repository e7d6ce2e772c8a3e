// Scenario-specific figures of a diagnosis (Diagnosis::details), each computed from the run's features:
// what a user looks at next after the ranked causes.
#pragma once

#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"

#include "ranked_causes.hpp"

namespace cann_debug::plugins::scenario {

/// Gradient flow: loss and gradient-norm figures, per-layer norms, the steps where anomalies sit; the
/// observations read the thresholds of the posterior's graph variables where they restate a state, and its
/// marginals where they say what a symptom means (a repetition of random batches is a reused order).
nlohmann::json training_details(const FeatureIndex& features, const Posterior& posterior);
/// Operator bottlenecks: latency percentiles, spike windows, top operators, request time split, CPU.
nlohmann::json inference_details(const FeatureIndex& features, const Posterior& posterior);
/// Topology-aware communication: per-rank step split, the rank that held the others up and how long
/// they waited, per-link bandwidth.
nlohmann::json distributed_details(const FeatureIndex& features, const Posterior& posterior);

/// Features whose name starts with one of `prefixes`, as {name: {value, unit, labels?, evidence?}}
/// (features with labels are keyed name{k=v,...}).
nlohmann::json features_json(const FeatureIndex& features, std::initializer_list<const char*> prefixes);

}  // namespace cann_debug::plugins::scenario
