#include "scenario_router.hpp"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "pipeline_match.hpp"
#include "scenario_pipeline.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;

struct Candidate {
  std::string scenario;
  std::string pipeline;
  std::vector<host::MatchRule> rules;
};

// Every pipeline with `match:` rules on the search path; a name found in an earlier folder hides later ones.
std::vector<Candidate> candidates_for(const std::string& folder) {
  std::vector<Candidate> out;
  std::set<std::string> seen;
  for (const auto& dir : pipeline_search_path()) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
      if (it->path().extension() == ".yaml") files.push_back(it->path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      const std::string scenario = f.stem().string();
      if (!seen.insert(scenario).second) continue;
      host::PipelineInputs inputs;
      inputs.variables["input"] = folder;
      inputs.variables["output"] = "/nonexistent-output";
      host::Diagnostics diags;  // a pipeline's other problems are reported when it runs
      auto doc = host::parse_pipeline_file(f.string(), inputs, diags);
      if (doc && !doc->match.empty()) out.push_back({scenario, f.string(), doc->match});
    }
  }
  return out;
}

}  // namespace

std::optional<Route> route_scenario(const GlobalOptions& g, const std::string& folder, std::string& why_not) {
  std::error_code ec;
  if (!fs::is_directory(folder, ec) && !fs::is_regular_file(folder, ec)) {
    why_not = fmt::format("{}: not a folder or a file", folder);
    return std::nullopt;
  }
  const auto candidates = candidates_for(folder);
  if (candidates.empty()) {
    why_not = fmt::format("no pipeline with 'match:' rules in {} (pass --scenario NAME or --pipeline FILE)",
                          fmt::join(pipeline_search_path(), ", "));
    return std::nullopt;
  }
  const auto registry = load_registry(g);
  const host::RunFolder run(*registry, folder);
  // Highest priority first (ties in search-path order), so the first rule that holds wins and a costly
  // rule below it (`contains:` reads into files) is never evaluated.
  std::vector<std::pair<const Candidate*, const host::MatchRule*>> rules;
  for (const auto& c : candidates)
    for (const auto& rule : c.rules) rules.emplace_back(&c, &rule);
  std::stable_sort(rules.begin(), rules.end(),
                   [](const auto& a, const auto& b) { return a.second->priority > b.second->priority; });
  std::optional<Route> best;
  for (const auto& [c, rule] : rules)
    if (auto why = host::rule_holds(*rule, run)) {
      best = Route{c->scenario, c->pipeline, *why};
      break;
    }
  if (!best) {
    std::vector<std::string> names;
    for (const auto& c : candidates) names.push_back(c.scenario);
    why_not = fmt::format(
        "{}: cannot tell the scenario: no rule of the pipelines {} holds for its files (their 'match:' "
        "rules name the files each is for); pass --scenario {}",
        folder, fmt::join(names, ", "), fmt::join(names, "|"));
  }
  return best;
}

}  // namespace cann_debug::cli
