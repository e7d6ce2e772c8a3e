#include "collect_plan.hpp"

#include <unistd.h>

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "pipeline_builder.hpp"

namespace cann_debug::cli {
namespace {

const char* kWriterId = "recording_writer/out";

std::string instance_id(const std::string& type) {
  return type + "/live";
}

bool has_option(const Manifest& m, std::string_view name) {
  return std::any_of(m.options.begin(), m.options.end(), [&](const OptionSpec& o) { return o.name == name; });
}

std::optional<std::string> metrics_port(const Manifest& m) {
  for (const auto& out : m.outputs)
    if (out.produces == MetricBatch::type_id || out.produces == MetricFrame::type_id) return out.name;
  return std::nullopt;
}

std::string host_name() {
  char name[256] = {};
  return ::gethostname(name, sizeof name - 1) == 0 ? std::string(name) : std::string();
}

/// "procfs.root=/x" -> "procfs/live.root=/x"; "procfs/live.root=/x" stays.
std::string pipeline_override(const std::string& text) {
  const auto eq = text.find('=');
  const auto slash = text.find('/');
  if (eq == std::string::npos || (slash != std::string::npos && slash < eq)) return text;
  const auto dot = text.find('.');
  if (dot == std::string::npos || dot > eq) return text;
  return text.substr(0, dot) + "/live" + text.substr(dot);
}

// The samplers, each set to the interval (and to every sample: `samples: 0`), feeding one writer.
host::PipelineBuilder make_pipeline(const CollectRequest& request, const host::PluginRegistry& registry,
                                    const std::vector<std::string>& sources) {
  nlohmann::json meta = {{"tool", "cann-debug collect"},
                         {"command", request.command_line},
                         {"sources", sources},
                         {"interval_ns", request.interval_ns},
                         {"host", host_name()},
                         {"compress", request.compress},
                         {"correlation", request.correlation}};
  host::PipelineBuilder builder("collect");
  // One thread polls every sampler (a sampler whose polls block gets its own): one wake-up per tick.
  builder.shared_source_thread();
  for (const auto& type : sources) {
    const Manifest& m = registry.find(type)->manifest();
    nlohmann::json options = nlohmann::json::object();
    if (request.interval_ns > 0 && has_option(m, "interval")) options["interval"] = request.interval_ns;
    if (has_option(m, "samples")) options["samples"] = 0;
    builder.add(instance_id(type), options);
  }
  nlohmann::json writer = {{"path", request.output}, {"compress", request.compress}, {"meta", meta}};
  if (request.flush_interval_ns > 0) writer["flush_interval"] = request.flush_interval_ns;
  if (request.correlation && request.interval_ns > 0) writer["align"] = request.interval_ns;
  builder.add(kWriterId, writer);
  for (const auto& type : sources)
    builder.link(instance_id(type) + "." + *metrics_port(registry.find(type)->manifest()),
                 std::string(kWriterId) + ".in");
  return builder;
}

std::optional<host::PipelinePlan> plan_sources(const std::vector<std::string>& sources,
                                               const CollectRequest& request,
                                               const host::PluginRegistry& registry, host::Diagnostics& diags,
                                               bool probe, std::string* yaml_out = nullptr) {
  std::vector<std::string> overrides;
  for (const auto& o : request.overrides) {
    std::string text = pipeline_override(o);
    // An override of a source left out (it cannot run here) is dropped with it.
    const std::string component = text.substr(0, text.find('.'));
    const bool kept =
        component == kWriterId || std::any_of(sources.begin(), sources.end(),
                                              [&](const auto& t) { return instance_id(t) == component; });
    const bool is_sampler = component.size() > 5 && component.ends_with("/live");
    if (kept || !is_sampler) overrides.push_back(std::move(text));
  }
  auto doc = make_pipeline(request, registry, sources).build(diags, overrides);
  if (!doc) return std::nullopt;
  if (yaml_out) *yaml_out = host::to_yaml(*doc);
  host::PlanOptions options;
  options.probe = probe;
  return host::plan_pipeline(*doc, registry, diags, options);
}

Availability probe_planned(const host::PlannedComponent& c) {
  try {
    return c.entry->factory->probe(c.config);
  } catch (const std::exception& e) {
    return Availability::no(fmt::format("probe failed: {}", e.what()));
  }
}

}  // namespace

std::vector<std::string> sampler_types(const host::PluginRegistry& registry) {
  std::vector<std::string> out;
  for (const auto& [type, entry] : registry.components())
    if (entry.manifest().kind == ComponentKind::kSampler && metrics_port(entry.manifest()))
      out.push_back(type);
  return out;
}

CollectPlan plan_collect(const CollectRequest& request, const host::PluginRegistry& registry,
                         host::Diagnostics& diags) {
  CollectPlan out;
  const bool all = request.sources.empty();
  const auto known = sampler_types(registry);
  if (!registry.find("recording_writer")) {
    diags.error({},
                "collect needs the recording_writer plugin, which was not found (see `cann-debug plugins`)");
    return out;
  }
  std::vector<std::string> candidates = all ? known : request.sources;
  for (const auto& type : candidates) {
    if (std::find(known.begin(), known.end(), type) == known.end()) {
      diags.error(
          {}, fmt::format("--sources: '{}' is not a sampler; samplers: {}", type, fmt::join(known, ", ")));
      return out;
    }
  }
  // First pass: options only, so each sampler is probed with the configuration it will run with.
  auto first = plan_sources(candidates, request, registry, diags, false);
  if (!first) return out;
  for (const auto& c : first->components) {
    if (c.id == kWriterId) continue;
    const Availability a = probe_planned(c);
    const std::string type = c.id.substr(0, c.id.find('/'));
    if (a.available) {
      out.sources.push_back(type);
    } else if (all) {
      out.skipped.push_back({type, a.reason});
    } else {
      diags.error({}, fmt::format("--sources: '{}' cannot run here: {}", type, a.reason));
    }
  }
  if (diags.has_errors()) return out;
  if (out.sources.empty()) {
    diags.error({},
                "no sampler can run here (each one's reason is listed above; point one at a fixture with "
                "--set TYPE.root=DIR or --set TYPE.library=PATH)");
    return out;
  }
  out.plan = plan_sources(out.sources, request, registry, diags, true, &out.yaml);
  return out;
}

}  // namespace cann_debug::cli
