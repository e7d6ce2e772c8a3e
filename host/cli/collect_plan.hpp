// What `cann-debug collect` runs: the samplers chosen by --sources (all that can run here, or a list),
// each set to the sampling interval and to the --set overrides, feeding one recording_writer.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "diagnostic.hpp"
#include "pipeline_plan.hpp"
#include "plugin_registry.hpp"

namespace cann_debug::cli {

struct CollectRequest {
  std::vector<std::string> sources;    // sampler types; empty = all samplers that can run here
  std::int64_t interval_ns = 0;        // set on every sampler that has an `interval` option
  std::string output;                  // recording file
  bool compress = false;               // anomaly-window retention
  bool correlation = false;            // sample times on one grid (align = interval)
  std::int64_t flush_interval_ns = 0;  // the writer's flush_interval (0 = its default)
  std::vector<std::string> overrides;  // "type.option=value" or "type/name.option=value"
  std::string command_line;            // stored in the recording's header
};

struct SkippedSource {
  std::string type;
  std::string reason;
};

struct CollectPlan {
  std::string yaml;  // the generated pipeline (shown by --dry-run)
  std::vector<std::string> sources;
  std::vector<SkippedSource> skipped;  // with --sources all: samplers that cannot run here, and why
  std::optional<host::PipelinePlan> plan;
};

/// Sampler types the registry knows (kind sampler), sorted.
std::vector<std::string> sampler_types(const host::PluginRegistry& registry);

/// Chooses the sources and validates the pipeline. Problems (unknown source, a listed source that cannot
/// run here, bad options) go to `diags`; `plan` is empty when there is an error.
CollectPlan plan_collect(const CollectRequest& request, const host::PluginRegistry& registry,
                         host::Diagnostics& diags);

}  // namespace cann_debug::cli
