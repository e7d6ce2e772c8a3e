// A pipeline as written: components keyed `type/name`, their options, and links between named ports,
// with the YAML position of everything so problems can be reported compiler-style.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
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

/// Expands ${name} and ${name:-default}; unknown names are reported through `missing`.
std::string expand_variables(const std::string& text, const std::map<std::string, std::string>& vars,
                             std::vector<std::string>& missing);

}  // namespace cann_debug::host
