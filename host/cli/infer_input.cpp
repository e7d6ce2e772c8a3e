#include "infer_input.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "scenario_pipeline.hpp"

namespace cann_debug::cli {
namespace {

using nlohmann::json;

constexpr std::string_view kCausePrefixSeparator = "=";

/// "root_cause=lr_too_high" -> "lr_too_high" (a graph with several root variables keeps "var=state").
std::string cause_name(const std::string& label, const std::string& root) {
  const std::string prefix = root + std::string(kCausePrefixSeparator);
  return label.starts_with(prefix) ? label.substr(prefix.size()) : label;
}

json refs_json(const std::vector<EvidenceRef>& refs) {
  json out = json::array();
  for (const auto& r : refs) out.push_back(r);
  return out;
}

}  // namespace

int infer_input(const GlobalOptions& g, const InferInputArgs& a) {
  std::string pipeline = a.pipeline;
  if (pipeline.empty()) {
    auto found = find_scenario_pipeline(a.scenario);
    if (!found) {
      fmt::print(stderr, "error: no pipeline '{}.yaml' in {} (pass --pipeline FILE)\n", a.scenario,
                 fmt::join(pipeline_search_path(), ", "));
      return kNotFound;
    }
    pipeline = *found;
  }
  TapRequest req;
  req.pipeline = pipeline;
  req.input = a.input;
  req.tap_types = {std::string(FeatureSet::type_id), std::string(Evidence::type_id),
                   std::string(Posterior::type_id)};
  if (!a.graph.empty())
    for (const char* type : {"discretize", "bayes_exact", "bayes_sampling"})
      req.set_on_type[type] = json{{"graph", a.graph}};
  req.set_on_type["bayes_exact"]["top_k"] = a.top_k;
  EmbeddedRun run;
  const int rc = run_tapped(g, req, run);
  if (rc != kOk) return rc;
  auto posteriors = run.of_type(Posterior::type_id);
  if (posteriors.empty()) {
    fmt::print(stderr, "error: {}: the pipeline produced no posterior (no evidence reached the engine)\n",
               pipeline);
    return kRunFailed;
  }
  const Posterior& p = posteriors.back()->envelope.as<Posterior>();
  const auto evidence_msgs = run.of_type(Evidence::type_id);
  const Evidence empty_evidence;
  const Evidence& ev = evidence_msgs.empty() ? empty_evidence : evidence_msgs.back()->envelope.as<Evidence>();
  std::map<std::string, const Feature*> features;
  for (const auto* m : run.of_type(FeatureSet::type_id))
    for (const auto& f : m->envelope.as<FeatureSet>().features) features[f.name] = &f;
  std::map<std::string, std::string> var_feature;  // variable -> the feature its discretization reads
  for (const auto& v : p.variables)
    if (!v.feature.empty()) var_feature[v.name] = v.feature;

  // The root variable: the one the ranked causes name.
  std::string root = "root_cause";
  if (!p.top_causes.empty()) root = p.top_causes.front().id.substr(0, p.top_causes.front().id.find('='));
  double healthy = 0.0;
  if (auto it = p.marginals.find(root); it != p.marginals.end())
    if (auto h = it->second.find("healthy"); h != it->second.end()) healthy = h->second;

  std::map<std::string, double> influence(p.evidence_ranking.begin(), p.evidence_ranking.end());
  json evidence = json::array();
  std::vector<std::string> observed;
  for (const auto& [var, state] : ev.hard) observed.push_back(var);
  for (const auto& [var, states] : ev.soft) observed.push_back(var);
  std::stable_sort(observed.begin(), observed.end(), [&](const std::string& x, const std::string& y) {
    return std::fabs(influence.contains(x) ? influence[x] : 0.0) >
           std::fabs(influence.contains(y) ? influence[y] : 0.0);
  });
  for (const auto& var : observed) {
    json item = {{"variable", var}};
    if (auto h = ev.hard.find(var); h != ev.hard.end()) item["state"] = h->second;
    if (auto s = ev.soft.find(var); s != ev.soft.end()) {
      item["likelihood"] = s->second;
      item["state"] = std::max_element(s->second.begin(), s->second.end(), [](auto& x, auto& y) {
                        return x.second < y.second;
                      })->first;
    }
    if (influence.contains(var)) item["influence"] = influence[var];
    if (auto f = var_feature.find(var); f != var_feature.end())
      if (auto it = features.find(f->second); it != features.end())
        item["feature"] = {
            {"name", it->second->name}, {"value", it->second->value}, {"unit", it->second->unit}};
    if (auto pr = ev.provenance.find(var); pr != ev.provenance.end()) item["refs"] = refs_json(pr->second);
    evidence.push_back(std::move(item));
  }

  json causes = json::array();
  for (const auto& c : p.top_causes)
    causes.push_back({{"id", cause_name(c.id, root)}, {"confidence", c.probability}, {"path", c.path}});

  if (a.json) {
    json out = {{"input", a.input},     {"scenario", a.scenario},   {"pipeline", pipeline},
                {"graph", p.graph},     {"root_causes", causes},    {"healthy_probability", healthy},
                {"evidence", evidence}, {"posteriors", p.marginals}};
    json feats = json::array();
    for (const auto& [name, f] : features) feats.push_back(*f);
    out["features"] = feats;
    out["elapsed_ms"] = run.report.seconds * 1000.0;
    fmt::print("{}\n", out.dump(2));
    return kOk;
  }
  fmt::print("Scenario {} on {} (graph {}, {:.0f} ms)\n", a.scenario, a.input, p.graph,
             run.report.seconds * 1000.0);
  fmt::print("P(healthy) = {:.3f}\n", healthy);
  fmt::print("Root causes:\n");
  int rank = 0;
  for (const auto& c : causes)
    fmt::print("  {}. {:<28} {:>6.3f}   path: {}\n", ++rank, c["id"].get<std::string>(),
               c["confidence"].get<double>(), fmt::join(c["path"].get<std::vector<std::string>>(), " -> "));
  if (a.evidence) {
    fmt::print("Evidence (most influential on the top cause first):\n");
    for (const auto& e : evidence) {
      std::string line =
          fmt::format("  {:<28} {:<10}", e["variable"].get<std::string>(), e.value("state", ""));
      if (e.contains("influence")) line += fmt::format(" {:>+8.3f}", e["influence"].get<double>());
      if (e.contains("feature"))
        line += fmt::format("   {} = {:.4g} {}", e["feature"]["name"].get<std::string>(),
                            e["feature"]["value"].get<double>(), e["feature"]["unit"].get<std::string>());
      if (e.contains("refs") && !e["refs"].empty()) {
        const auto& r = e["refs"][0];
        line += fmt::format("   [{} {}]", r.value("kind", ""), r.value("id", ""));
      }
      fmt::print("{}\n", line);
    }
  }
  return kOk;
}

}  // namespace cann_debug::cli
