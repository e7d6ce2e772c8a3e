// Building a pipeline in code. The verbs that assemble their own pipeline (infer, kb learn, collect) and
// programs that embed the host use this instead of writing YAML text: what it builds is the
// PipelineDocument the YAML parser makes, so plan_pipeline() validates it the same way and reports
// problems at the builder's name and the number of the call that added the item ("<infer>:2").
// to_yaml() writes any document out as a pipeline file that `cann-debug run` reads back unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnostic.hpp"
#include "pipeline_document.hpp"

namespace cann_debug::host {

class PipelineBuilder {
 public:
  /// `name` stands where a file name would in diagnostics.
  explicit PipelineBuilder(std::string name);

  /// Adds component `type/name` with its options (a JSON object; `on_error` sets the runner's policy).
  PipelineBuilder& add(const std::string& id, const nlohmann::json& options = nlohmann::json::object());
  /// Links output `type/name.port` to input `type/name.port`.
  PipelineBuilder& link(const std::string& from, const std::string& to);
  /// A folder to load plugin packages from, before the default search path.
  PipelineBuilder& plugin_path(std::string path);
  PipelineBuilder& queue_capacity(std::size_t messages);
  PipelineBuilder& idle_interval_ns(std::int64_t ns);
  /// settings.source_threads: shared (one thread polls every source) or own.
  PipelineBuilder& shared_source_thread(bool shared = true);
  PipelineBuilder& description(std::string text);

  /// The document, with `--set` style overrides applied. Ill-formed ids, options and links are reported
  /// to `diags`; nullopt when there was any.
  std::optional<PipelineDocument> build(Diagnostics& diags,
                                        const std::vector<std::string>& overrides = {}) const;

 private:
  SourceRef next_position();
  struct PendingComponent {
    std::string id;
    nlohmann::json options;
    SourceRef where;
  };
  struct PendingLink {
    std::string from, to;
    SourceRef where;
  };
  std::string name_;
  int calls_ = 0;
  PipelineDocument doc_;
  std::vector<PendingComponent> components_;
  std::vector<PendingLink> links_;
};

/// The document as pipeline YAML (version 1): settings, plugin paths, components with their options, links.
/// Strings that YAML would read as something else (numbers, booleans, null, `${...}`) are quoted.
std::string to_yaml(const PipelineDocument& doc);

}  // namespace cann_debug::host
