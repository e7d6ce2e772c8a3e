#include "explain.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace cann_debug::bayes {
namespace {

bool is_default_name(const std::string& state) {
  std::string s;
  for (char c : state) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  for (const char* name :
       {"healthy", "normal", "nominal", "ok", "none", "no", "false", "absent", "off", "negative"})
    if (s == name) return true;
  return false;
}

// The largest probability of a non-default state of v, and that state.
std::pair<double, int> most_abnormal(const std::vector<double>& marginal, int default_state) {
  double best = -1.0;
  int state = -1;
  for (std::size_t s = 0; s < marginal.size(); ++s)
    if (static_cast<int>(s) != default_state && marginal[s] > best) {
      best = marginal[s];
      state = static_cast<int>(s);
    }
  return {std::max(best, 0.0), state};
}

struct Route {
  double score = -std::numeric_limits<double>::infinity();  // sum of log activations of the mechanisms
  std::vector<int> nodes;
  bool valid = false;
};

// Higher score, then fewer nodes, then the lexicographically smaller sequence of names.
bool better(const Network& net, const Route& a, const Route& b) {
  if (!b.valid) return a.valid;
  if (!a.valid) return false;
  if (a.score != b.score) return a.score > b.score;
  if (a.nodes.size() != b.nodes.size()) return a.nodes.size() < b.nodes.size();
  return std::lexicographical_compare(a.nodes.begin(), a.nodes.end(), b.nodes.begin(), b.nodes.end(),
                                      [&](int x, int y) {
                                        return net.variables[static_cast<std::size_t>(x)].name <
                                               net.variables[static_cast<std::size_t>(y)].name;
                                      });
}

// P(evidence of t) predicted from t's table and the marginals of its parents in q: how well the state of
// the world in q explains what was observed at t.
double predicted_evidence(const Network& net, const Likelihoods& evidence, const InferenceResult& q, int t) {
  const Variable& var = net.variables[static_cast<std::size_t>(t)];
  const std::size_t k = var.cardinality();
  std::size_t rows = 1;
  for (int p : var.parents) rows *= net.variables[static_cast<std::size_t>(p)].cardinality();
  double total = 0.0;
  for (std::size_t r = 0; r < rows; ++r) {
    // Decode the row into parent states: the last parent varies fastest.
    double weight = 1.0;
    std::size_t rest = r;
    for (std::size_t i = var.parents.size(); i-- > 0;) {
      const int p = var.parents[i];
      const std::size_t card = net.variables[static_cast<std::size_t>(p)].cardinality();
      weight *= q.marginals[static_cast<std::size_t>(p)][rest % card];
      rest /= card;
    }
    if (weight <= 0.0) continue;
    for (std::size_t s = 0; s < k; ++s) total += weight * var.cpt[r * k + s] * evidence.of(t)[s];
  }
  return total;
}

}  // namespace

std::vector<int> default_states(const Network& net, const InferenceResult& prior) {
  std::vector<int> out(net.size(), 0);
  for (std::size_t v = 0; v < net.size(); ++v) {
    const Variable& var = net.variables[v];
    if (var.default_state >= 0) {
      out[v] = var.default_state;
      continue;
    }
    auto named = std::find_if(var.states.begin(), var.states.end(), is_default_name);
    if (named != var.states.end()) {
      out[v] = static_cast<int>(named - var.states.begin());
      continue;
    }
    const auto& m = prior.marginals[v];
    out[v] = static_cast<int>(std::max_element(m.begin(), m.end()) - m.begin());
  }
  return out;
}

std::vector<int> parentless_variables(const Network& net) {
  std::vector<int> out;
  for (std::size_t v = 0; v < net.size(); ++v)
    if (net.variables[v].parents.empty()) out.push_back(static_cast<int>(v));
  return out;
}

std::vector<StateRef> propagation_path(const Network& net, const std::vector<int>& defaults,
                                       const Likelihoods& evidence, StateRef cause,
                                       const InferenceResult& clamped, const InferenceResult* baseline) {
  const std::size_t n = net.size();
  std::vector<Route> best(n);
  best[static_cast<std::size_t>(cause.variable)] = {0.0, {cause.variable}, true};
  // Topological order visits every parent before its children, so one sweep relaxes all routes.
  for (int u : net.topological_order()) {
    const Route& from = best[static_cast<std::size_t>(u)];
    if (!from.valid || (u != cause.variable && evidence.observed(u))) continue;  // routes end at observations
    for (int c : net.children(u)) {
      Route r;
      r.valid = true;
      r.nodes = from.nodes;
      r.nodes.push_back(c);
      r.score = from.score;
      if (!evidence.observed(c)) {
        const double a = most_abnormal(clamped.marginals[static_cast<std::size_t>(c)],
                                       defaults[static_cast<std::size_t>(c)])
                             .first;
        r.score += a > 0.0 ? std::log(a) : -std::numeric_limits<double>::infinity();
      }
      if (better(net, r, best[static_cast<std::size_t>(c)])) best[static_cast<std::size_t>(c)] = std::move(r);
    }
  }
  // Targets: observed descendants, those observed in an abnormal state when there are any.
  std::vector<int> targets, abnormal;
  for (std::size_t v = 0; v < n; ++v) {
    const int vi = static_cast<int>(v);
    if (vi == cause.variable || !evidence.observed(vi) || !best[v].valid) continue;
    targets.push_back(vi);
    if (evidence.strongest_state(vi) != defaults[v]) abnormal.push_back(vi);
  }
  const auto& pool = abnormal.empty() ? targets : abnormal;
  // Log likelihood ratio of a target's evidence, the cause against the baseline (0 without one).
  auto support = [&](int t) {
    if (!baseline) return 0.0;
    const double with = predicted_evidence(net, evidence, clamped, t);
    const double without = predicted_evidence(net, evidence, *baseline, t);
    if (with <= 0.0) return -std::numeric_limits<double>::infinity();
    return without > 0.0 ? std::log(with / without) : std::numeric_limits<double>::infinity();
  };
  const Route* chosen = nullptr;
  double chosen_support = 0.0;
  for (int t : pool) {
    const Route& r = best[static_cast<std::size_t>(t)];
    const double s = support(t);
    bool take = !chosen;
    if (chosen) {
      if (r.score != chosen->score || r.nodes.size() != chosen->nodes.size())
        take = better(net, r, *chosen);
      else if (s != chosen_support)
        take = s > chosen_support;
      else
        take = better(net, r, *chosen);
    }
    if (take) {
      chosen = &r;
      chosen_support = s;
    }
  }
  std::vector<StateRef> path{cause};
  if (!chosen) return path;
  for (std::size_t i = 1; i < chosen->nodes.size(); ++i) {
    const int v = chosen->nodes[i];
    const int state = evidence.observed(v) ? evidence.strongest_state(v)
                                           : most_abnormal(clamped.marginals[static_cast<std::size_t>(v)],
                                                           defaults[static_cast<std::size_t>(v)])
                                                 .second;
    path.push_back({v, state});
  }
  return path;
}

Explanation explain(const Network& net, const std::vector<int>& defaults, const InferenceFn& infer,
                    const Likelihoods& evidence, const InferenceResult& posterior,
                    const ExplainOptions& options) {
  Explanation out;
  const std::vector<int> roots = options.roots.empty() ? parentless_variables(net) : options.roots;
  std::vector<RankedState> candidates;
  for (int r : roots) {
    if (evidence.observed(r)) continue;  // an observed root is a fact, not a hypothesis
    const auto& m = posterior.marginals[static_cast<std::size_t>(r)];
    for (std::size_t s = 0; s < m.size(); ++s)
      if (static_cast<int>(s) != defaults[static_cast<std::size_t>(r)])
        candidates.push_back({{r, static_cast<int>(s)}, m[s], {}});
  }
  std::stable_sort(candidates.begin(), candidates.end(), [](const RankedState& a, const RankedState& b) {
    if (a.probability != b.probability) return a.probability > b.probability;
    return a.cause.variable != b.cause.variable ? a.cause.variable < b.cause.variable
                                                : a.cause.state < b.cause.state;
  });
  if (candidates.size() > options.top_k) candidates.resize(options.top_k);
  for (RankedState& c : candidates) {
    c.path = {c.cause};
    if (!options.paths || c.probability <= 0.0) continue;
    Likelihoods clamped = evidence;
    clamped.set_hard(c.cause.variable, c.cause.state,
                     net.variables[static_cast<std::size_t>(c.cause.variable)].cardinality());
    const InferenceResult q = infer(clamped);
    Likelihoods at_default = evidence;
    at_default.set_hard(c.cause.variable, defaults[static_cast<std::size_t>(c.cause.variable)],
                        net.variables[static_cast<std::size_t>(c.cause.variable)].cardinality());
    const InferenceResult base = infer(at_default);
    out.propagations += 2;
    c.path = propagation_path(net, defaults, evidence, c.cause, q, &base);
  }
  out.causes = std::move(candidates);
  if (!options.evidence_ranking || out.causes.empty() || out.causes.front().probability <= 0.0) return out;
  const StateRef top = out.causes.front().cause;
  const double log_p = std::log(out.causes.front().probability);
  for (int v : evidence.observed_variables()) {
    Likelihoods without = evidence;
    without.clear(v);
    const InferenceResult q = infer(without);
    ++out.propagations;
    const double p = q.marginals[static_cast<std::size_t>(top.variable)][static_cast<std::size_t>(top.state)];
    out.influence.push_back({v, p > 0.0 ? log_p - std::log(p) : std::numeric_limits<double>::infinity()});
  }
  std::stable_sort(out.influence.begin(), out.influence.end(),
                   [&](const EvidenceInfluence& a, const EvidenceInfluence& b) {
                     if (std::fabs(a.log_ratio) != std::fabs(b.log_ratio))
                       return std::fabs(a.log_ratio) > std::fabs(b.log_ratio);
                     return net.variables[static_cast<std::size_t>(a.variable)].name <
                            net.variables[static_cast<std::size_t>(b.variable)].name;
                   });
  return out;
}

}  // namespace cann_debug::bayes
