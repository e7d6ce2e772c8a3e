#include "ranked_causes.hpp"

#include <algorithm>
#include <cmath>
#include <set>

#include <fmt/format.h>

namespace cann_debug::plugins::scenario {
namespace {

std::string format_value(double v) {
  if (!std::isfinite(v)) return std::isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf");
  return fmt::format("{:.4g}", v);
}

/// A few words of a variable's description for a one-line explanation: a quoted name near the start
/// ("Mechanism 'unstable updates': ...") or the first clause, at most 80 characters.
std::string short_description(const std::string& description) {
  const auto open = description.find('\'');
  if (open != std::string::npos && open < 40) {
    const auto close = description.find('\'', open + 1);
    if (close != std::string::npos && close - open > 1) return description.substr(open + 1, close - open - 1);
  }
  auto end = description.find_first_of(".:;(");
  std::string out = description.substr(0, end);
  while (!out.empty() && out.back() == ' ') out.pop_back();
  if (out.size() > 80) out = out.substr(0, 77) + "...";
  return out;
}

/// "var=state" -> {var, state}.
std::pair<std::string, std::string> split_label(const std::string& label) {
  const auto eq = label.find('=');
  if (eq == std::string::npos) return {label, ""};
  return {label.substr(0, eq), label.substr(eq + 1)};
}

std::string observed_state(const Evidence* evidence, const std::string& var) {
  if (!evidence) return {};
  if (auto h = evidence->hard.find(var); h != evidence->hard.end()) return h->second;
  if (auto s = evidence->soft.find(var); s != evidence->soft.end() && !s->second.empty())
    return std::max_element(s->second.begin(), s->second.end(),
                            [](auto& a, auto& b) { return a.second < b.second; })
        ->first;
  return {};
}

}  // namespace

const Feature* FeatureIndex::find(const std::string& name) const {
  for (const auto& f : all)
    if (f.name == name) return &f;
  return nullptr;
}

std::vector<const Feature*> FeatureIndex::with_prefix(const std::string& prefix) const {
  std::vector<const Feature*> out;
  for (const auto& f : all)
    if (f.name.starts_with(prefix)) out.push_back(&f);
  return out;
}

std::vector<RootCause> rank_causes(const Posterior& posterior, const Evidence* evidence,
                                   const FeatureIndex& features, const RankingOptions& options) {
  std::vector<RootCause> out;
  std::map<std::string, const GraphVariable*> notes;  // what the graph says of each variable
  for (const auto& v : posterior.variables) notes[v.name] = &v;
  auto marginal = posterior.marginals.find(options.root);
  if (marginal == posterior.marginals.end()) return out;
  std::vector<std::pair<std::string, double>> states(marginal->second.begin(), marginal->second.end());
  std::stable_sort(states.begin(), states.end(), [](auto& a, auto& b) { return a.second > b.second; });

  for (const auto& [state, p] : states) {
    if (!out.empty() && (p < options.min_confidence || out.size() >= options.max_causes)) break;
    RootCause cause;
    cause.id = state;
    cause.confidence = p;
    if (state == options.healthy_state) {
      cause.explanation = "no observed symptom points at a fault strongly enough";
      out.push_back(std::move(cause));
      continue;
    }
    const std::string label = options.root + "=" + state;
    for (const auto& rc : posterior.top_causes)
      if (rc.id == label) cause.path = rc.path;
    // The observed variables along the path, then every other observed variable whose state is not the
    // default one (the path names one symptom; the others support the same cause).
    std::vector<std::string> vars;
    for (const auto& step : cause.path) {
      auto [var, st] = split_label(step);
      if (var != options.root && !observed_state(evidence, var).empty()) vars.push_back(var);
    }
    // For the engine's top cause, the evidence that raised it most (leave-one-out influence > 0) too.
    if (!posterior.top_causes.empty() && posterior.top_causes.front().id == label)
      for (const auto& [var, influence] : posterior.evidence_ranking)
        // Only evidence that moved the cause noticeably (a posterior ratio above e^0.1 = 1.1x).
        if (influence > 0.1 && var != options.root && vars.size() < 6) vars.push_back(var);
    std::vector<std::string> sentences;
    std::set<std::string> seen;
    for (const auto& var : vars) {
      if (!seen.insert(var).second) continue;
      const std::string st = observed_state(evidence, var);
      std::string sentence = fmt::format("{}={}", var, st);
      auto note = notes.find(var);
      if (note != notes.end()) {
        const GraphVariable& about = *note->second;
        if (!about.description.empty()) sentence += " (" + short_description(about.description) + ")";
        if (const Feature* f = about.feature.empty() ? nullptr : features.find(about.feature)) {
          sentence += fmt::format(": {} = {}{}{}", f->name, format_value(f->value),
                                  f->unit.empty() ? "" : " ", f->unit);
          cause.evidence.insert(cause.evidence.end(), f->evidence.begin(), f->evidence.end());
        }
      }
      if (evidence)
        if (auto pr = evidence->provenance.find(var); pr != evidence->provenance.end())
          for (const auto& ref : pr->second)
            if (std::find_if(cause.evidence.begin(), cause.evidence.end(), [&](const EvidenceRef& r) {
                  return r.kind == ref.kind && r.id == ref.id && r.first_step == ref.first_step &&
                         r.start_ns == ref.start_ns;
                }) == cause.evidence.end())
              cause.evidence.push_back(ref);
      sentences.push_back(std::move(sentence));
    }
    cause.explanation = fmt::format("P={:.2f}", p);
    if (!sentences.empty()) {
      cause.explanation += "; ";
      for (std::size_t i = 0; i < sentences.size(); ++i) cause.explanation += (i ? "; " : "") + sentences[i];
    }
    out.push_back(std::move(cause));
  }
  return out;
}

bool symptom_observed(const Posterior& posterior, const Evidence& evidence, const FeatureIndex& features) {
  if (posterior.variables.empty()) return true;  // the engine did not say which feature each variable reads
  for (const auto& v : posterior.variables) {
    if (v.feature.empty() || !features.find(v.feature)) continue;
    if (evidence.hard.contains(v.name) || evidence.soft.contains(v.name)) return true;
  }
  return false;
}

}  // namespace cann_debug::plugins::scenario
