// A pipeline as written: components keyed `type/name`, their options, and links between named ports,
// with the YAML position of everything so problems can be reported compiler-style.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "diagnostic.hpp"

namespace cann_debug::host {

struct OptionDecl {
  std::string key;
  nlohmann::json value;
  SourceRef key_where;
  SourceRef value_where;
};

struct ComponentDecl {
  std::string id;  // type/name
  std::string type;
  std::string name;
  SourceRef where;  // the id key
  std::vector<OptionDecl> options;
  nlohmann::json options_json() const;
  const OptionDecl* option(const std::string& key) const;
};

struct PortRef {
  std::string component;  // type/name
  std::string port;
};

struct LinkDecl {
  PortRef from;
  PortRef to;
  std::string text;
  SourceRef where;
};

/// One rule of a pipeline's `match:` list: when `diagnose --scenario auto` should pick this pipeline for a
/// run's folder. A rule holds when all of its conditions do; the matching rule of highest priority over
/// every pipeline wins (docs/pipelines.md, "match").
struct MatchRule {
  int priority = 50;
  /// Files (or folders) under the run's folder, to depth 3, that this reader's sniff() claims best.
  std::string reader;
  /// Files under the folder, to depth 3, with one of these names.
  std::vector<std::string> files;
  std::size_t at_least = 1;  // how many such files
  /// With `files`: the first record of one of them (a JSON document, or the first line of JSON lines)
  /// has one of these top-level fields...
  std::vector<std::string> fields;
  /// ...and/or these fields with these values.
  nlohmann::json equals = nlohmann::json::object();
  /// The file (with `file`, or one `reader` claims) holds one of these strings in its first 64 MiB, after
  /// gzip is undone: what the file is about when its format does not say (a profiler trace of training
  /// holds "Optimizer.step").
  std::vector<std::string> contains;
  std::string says;  // what the user is told; {count}: the number of files, {file}: the first one's name
  SourceRef where;
};

struct PipelineDocument {
  std::string file;
  std::string name;
  std::string description;
  std::vector<std::string> plugin_paths;
  std::vector<ComponentDecl> components;
  std::vector<LinkDecl> links;
  std::size_t queue_capacity = 1024;  // messages waiting per node before sources are held back
  std::int64_t idle_interval_ns = 10'000'000;
  bool shared_source_thread = false;  // settings.source_threads: shared (true) or own (false)
  SourceRef components_where;
  std::vector<MatchRule> match;

  const ComponentDecl* component(const std::string& id) const;
};

struct PipelineInputs {
  /// ${name} values: input, output, and --var name=value. The environment is consulted after these.
  std::map<std::string, std::string> variables;
  /// --set type/name.option=value, applied after parsing.
  std::vector<std::string> overrides;
};

/// Parses and expands a pipeline. Problems go to `diags`; returns nullopt only when the text is not
/// YAML at all (syntax error) or not a mapping. Structural errors are reported and parsing continues.
std::optional<PipelineDocument> parse_pipeline_text(const std::string& text, const std::string& file,
                                                    const PipelineInputs& inputs, Diagnostics& diags);
std::optional<PipelineDocument> parse_pipeline_file(const std::string& path, const PipelineInputs& inputs,
                                                    Diagnostics& diags);

/// Applies `--set type/name.option=value` overrides to a document (YAML values: `3`, `true`, `[a, b]`).
void apply_overrides(PipelineDocument& doc, const std::vector<std::string>& overrides, Diagnostics& diags);

/// Splits a component id `type/name` (type: [a-z][a-z0-9_.]*, name: letters, digits, '_', '.', '-');
/// false when it is not of that form.
bool split_component_id(const std::string& id, std::string& type, std::string& name);
/// Parses `type/name.port` (surrounding blanks ignored); false when it is not of that form.
bool parse_port_ref(std::string_view text, PortRef& out);

/// Expands ${name} and ${name:-default}; unknown names are reported through `missing`.
std::string expand_variables(const std::string& text, const std::map<std::string, std::string>& vars,
                             std::vector<std::string>& missing);

}  // namespace cann_debug::host
