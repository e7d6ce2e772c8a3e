#include "diagnose_run.hpp"

#include <chrono>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "scenario_pipeline.hpp"
#include "scenario_router.hpp"

namespace cann_debug::cli {
namespace {

using nlohmann::json;

json suggestion_json(const Suggestion& s, const std::string& cause) {
  json j = s;
  j["root_cause"] = cause;
  return j;
}

}  // namespace

DiagnoseResult diagnose_folder(const GlobalOptions& g, const DiagnoseRequest& request) {
  const auto started = std::chrono::steady_clock::now();
  DiagnoseResult result;
  std::string scenario = request.scenario;
  std::string route_reason = "--scenario";
  std::string pipeline = request.pipeline;
  if (scenario == "auto" && pipeline.empty()) {
    std::string why_not;
    auto route = route_scenario(g, request.input, why_not);
    if (!route) {
      result.rc = kUsage;
      result.error = why_not;
      return result;
    }
    scenario = route->scenario;
    route_reason = route->reason;
    pipeline = route->pipeline;
  }
  if (pipeline.empty()) {
    auto found = find_scenario_pipeline(scenario);
    if (!found) {
      result.rc = kNotFound;
      result.error =
          fmt::format("no pipeline '{}.yaml' in {}", scenario, fmt::join(pipeline_search_path(), ", "));
      return result;
    }
    pipeline = *found;
  } else if (scenario == "auto") {
    route_reason = "--pipeline";
  }
  TapRequest tap;
  tap.pipeline = pipeline;
  tap.input = request.input;
  tap.output = request.output;
  tap.keep_sinks = !request.output.empty();
  tap.set_on_type = request.set_on_type;
  tap.tap_types = {std::string(Diagnosis::type_id), std::string(Advice::type_id)};
  EmbeddedRun run;
  result.rc = run_tapped(g, tap, run);
  const auto diagnoses = run.of_type(Diagnosis::type_id);
  if (result.rc != kOk || diagnoses.empty()) {
    if (result.rc == kOk) result.rc = kRunFailed;
    result.error = fmt::format(
        "{}: {} on {}", pipeline,
        diagnoses.empty() ? "no diagnosis came out of the pipeline" : "the pipeline failed", request.input);
    return result;
  }
  const Diagnosis& d = diagnoses.back()->envelope.as<Diagnosis>();
  if (d.root_causes.empty()) {
    result.rc = kRunFailed;
    result.error = fmt::format("{}: {}", request.input,
                               d.details.is_object() && d.details.contains("error")
                                   ? d.details["error"].get<std::string>()
                                   : std::string("the analyzer named no root cause"));
    return result;
  }
  json doc;
  doc["input"] = request.input;
  doc["scenario"] = d.scenario.empty() ? scenario : d.scenario;
  doc["scenario_from"] = route_reason;
  doc["pipeline"] = pipeline;
  doc["healthy"] = d.healthy;
  json causes = json::array();
  json evidence = json::array();
  for (const auto& rc : d.root_causes) {
    json c = rc;
    causes.push_back(c);
    for (const auto& ref : rc.evidence) {
      json e = ref;
      e["root_cause"] = rc.id;
      evidence.push_back(e);
    }
  }
  doc["root_causes"] = causes;
  doc["evidence"] = evidence;
  json suggestions = json::array();
  for (const auto* m : run.of_type(Advice::type_id)) {
    const Advice& a = m->envelope.as<Advice>();
    for (const auto& s : a.suggestions) suggestions.push_back(suggestion_json(s, a.for_root_cause));
  }
  doc["suggestions"] = suggestions;
  doc["details"] = d.details;
  if (!request.output.empty()) doc["output"] = request.output;
  doc["elapsed_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  result.document = std::move(doc);
  return result;
}

void print_diagnosis_text(const json& doc) {
  fmt::print("Scenario:   {} ({})\n", doc.value("scenario", "?"), doc.value("scenario_from", ""));
  const auto& causes = doc["root_causes"];
  if (doc.value("healthy", false)) {
    double conf = 0.0;
    for (const auto& c : causes)
      if (c.value("id", "") == "healthy") conf = c.value("confidence", 0.0);
    fmt::print("Verdict:    healthy (confidence {:.2f})\n", conf);
  } else if (!causes.empty()) {
    fmt::print("Root cause: {} (confidence {:.2f})\n", causes[0].value("id", "?"),
               causes[0].value("confidence", 0.0));
  }
  if (causes.size() > 1) {
    fmt::print("Ranked:\n");
    for (const auto& c : causes)
      fmt::print("  {:<28} {:.3f}\n", c.value("id", "?"), c.value("confidence", 0.0));
  }
  if (!causes.empty() && causes[0].contains("path") && !causes[0]["path"].empty())
    fmt::print("Path:       {}\n", fmt::join(causes[0]["path"].get<std::vector<std::string>>(), " -> "));
  if (const auto& d = doc["details"];
      d.is_object() && d.contains("who_waited_for_whom") && d["who_waited_for_whom"].contains("late_rank")) {
    const auto& w = d["who_waited_for_whom"];
    std::string line =
        fmt::format("rank {:.0f} held the others up in the collectives", w["late_rank"].get<double>());
    if (w.contains("rank.collective_wait_skew"))
      line += fmt::format(" (the longest waiter lost {:.0f}% of a step)",
                          100.0 * w["rank.collective_wait_skew"]["value"].get<double>());
    fmt::print("Direction:  {}\n", line);
  }
  if (!causes.empty() && !causes[0].value("explanation", "").empty())
    fmt::print("Why:        {}\n", causes[0].value("explanation", ""));
  int shown = 0;
  for (const auto& e : doc["evidence"]) {
    if (shown == 0) fmt::print("Evidence:\n");
    if (++shown > 6) break;
    std::string where = e.value("kind", "");
    if (e.contains("id") && !e["id"].get<std::string>().empty()) where += " " + e["id"].get<std::string>();
    if (e.value("first_step", -1) >= 0)
      where += fmt::format(" steps {}-{}", e["first_step"].get<long>(), e.value("last_step", -1L));
    fmt::print("  [{}] {}\n", e.value("root_cause", ""), where);
  }
  shown = 0;
  for (const auto& s : doc["suggestions"]) {
    if (shown == 0) fmt::print("Suggestions:\n");
    if (++shown > 3) break;
    fmt::print("  {}. {} — {}\n", shown, s.value("title", ""), s.value("rationale", ""));
    if (s.contains("config_patch") && !s["config_patch"].is_null() && !s["config_patch"].empty())
      fmt::print("     patch: {}\n", s["config_patch"].dump());
  }
  if (doc.contains("output")) fmt::print("Report:     {}\n", doc["output"].get<std::string>());
  fmt::print("Time:       {:.0f} ms\n", doc.value("elapsed_ms", 0.0));
}

}  // namespace cann_debug::cli
