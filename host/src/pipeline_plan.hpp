// A validated pipeline: every component resolved to a factory with converted options, every link
// checked for existence, direction and message type, and a topological order.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/options.hpp"
#include "diagnostic.hpp"
#include "pipeline_document.hpp"
#include "plugin_registry.hpp"

namespace cann_debug::host {

/// What the runner does when a call into a component's code throws (the component's `on_error:` key).
enum class ErrorPolicy {
  kCancel,  // cancel the run (the default); what sinks already wrote stays written
  kDrain,   // the component stops; the rest of the graph runs to its end, keeping its partial output
  kSkip,    // the message that failed is dropped and the component goes on (a source: as kDrain)
};
std::string_view to_string(ErrorPolicy policy);
/// "cancel", "drain" or "skip"; nullopt otherwise.
std::optional<ErrorPolicy> parse_error_policy(std::string_view text);
/// The key of a component's options that sets its policy; the host takes it out before the options are
/// validated against the manifest, so no plugin option may be called this.
inline constexpr std::string_view kOnErrorKey = "on_error";

struct PlannedComponent {
  std::string id;
  SourceRef where;
  const ComponentEntry* entry = nullptr;
  Config config;
  ErrorPolicy on_error = ErrorPolicy::kCancel;
  const Manifest& manifest() const { return entry->manifest(); }
};

struct PlannedLink {
  std::size_t from = 0, from_port = 0;  // component index, output port index
  std::size_t to = 0, to_port = 0;      // component index, input port index
  std::string message_type;             // what the output produces
  std::string text;
  SourceRef where;
  bool expand_frames = false;  // metric.frame/1 produced, metric.batch/1 accepted: the host expands
};

struct PipelinePlan {
  PipelineDocument document;
  std::vector<PlannedComponent> components;
  std::vector<PlannedLink> links;
  std::vector<std::size_t> topological_order;  // producers before consumers
};

struct PlanOptions {
  bool probe = true;  // ask each factory whether it can run here
};

/// The type a link delivers to `in` when the output produces `produced`: `produced` itself when the
/// input accepts it, metric.batch/1 for a metric.frame/1 the input does not accept (the host expands the
/// frame into its points), "" when the link is not possible.
std::string_view delivered_type(const InputPort& in, std::string_view produced);

/// Validates in the documented order (types, options, plugin validate, probe, links, cycles), reporting
/// every problem. Returns a plan only when there is no error.
std::optional<PipelinePlan> plan_pipeline(const PipelineDocument& doc, const PluginRegistry& registry,
                                          Diagnostics& diags, const PlanOptions& options = {});

}  // namespace cann_debug::host
