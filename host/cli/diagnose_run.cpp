#include "diagnose_run.hpp"

#include <chrono>
#include <cstdlib>
#include <filesystem>

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

std::string default_kb_outcomes_path() {
  if (const char* explicit_path = std::getenv("CANN_DEBUG_KB_OUTCOMES")) return explicit_path;
  if (const char* data = std::getenv("XDG_DATA_HOME"); data && *data)
    return (std::filesystem::path(data) / "cann-debug" / "outcomes.json").string();
  if (const char* home = std::getenv("HOME"); home && *home)
    return (std::filesystem::path(home) / ".local" / "share" / "cann-debug" / "outcomes.json").string();
  return {};
}

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
  if (!request.kb_outcomes.empty()) tap.set_on_type["kb_advisor"]["history"] = request.kb_outcomes;
  tap.tap_types = {std::string(Diagnosis::type_id), std::string(Advice::type_id)};
  if (request.run_inputs) {
    tap.tap_types.push_back(std::string(FeatureSet::type_id));
    tap.tap_types.push_back(std::string(RunConfiguration::type_id));
  }
  if (request.report_model) {
    tap.tap_types.push_back(std::string(JsonMessage::type_id));
    if (!tap.keep_sinks) {
      // The report writes no file then, but still emits the model the console renders.
      tap.keep_sink_types.insert(std::string(kReportType));
      tap.set_on_type[std::string(kReportType)]["formats"] = json::array();
    }
  }
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
  if (request.report_model)
    for (const auto* m : run.of_type(JsonMessage::type_id))
      if (const json& v = m->envelope.as<JsonMessage>().value;
          v.is_object() && v.value("format", "") == kReportFormat)
        result.report = v;
  if (d.root_causes.empty()) {
    result.rc = kRunFailed;
    result.error = fmt::format("{}: {}", request.input,
                               d.details.is_object() && d.details.contains("error")
                                   ? d.details["error"].get<std::string>()
                                   : std::string("the analyzer named no root cause"));
    return result;
  }
  if (request.run_inputs) {
    for (const auto* m : run.of_type(FeatureSet::type_id))
      result.features.push_back(m->envelope.as<FeatureSet>());
    for (const auto* m : run.of_type(RunConfiguration::type_id))
      result.config = m->envelope.as<RunConfiguration>();
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

}  // namespace cann_debug::cli
