#include "pipeline_builder.hpp"

#include <yaml-cpp/yaml.h>

#include <fmt/format.h>
#include <regex>

namespace cann_debug::host {

PipelineBuilder::PipelineBuilder(std::string name) : name_(std::move(name)) {
  doc_.file = name_;
  doc_.name = name_;
}

SourceRef PipelineBuilder::next_position() {
  return {name_, ++calls_, 1};
}

PipelineBuilder& PipelineBuilder::add(const std::string& id, const nlohmann::json& options) {
  components_.push_back({id, options, next_position()});
  return *this;
}

PipelineBuilder& PipelineBuilder::link(const std::string& from, const std::string& to) {
  links_.push_back({from, to, next_position()});
  return *this;
}

PipelineBuilder& PipelineBuilder::plugin_path(std::string path) {
  doc_.plugin_paths.push_back(std::move(path));
  return *this;
}

PipelineBuilder& PipelineBuilder::queue_capacity(std::size_t messages) {
  doc_.queue_capacity = messages;
  return *this;
}

PipelineBuilder& PipelineBuilder::idle_interval_ns(std::int64_t ns) {
  doc_.idle_interval_ns = ns;
  return *this;
}

PipelineBuilder& PipelineBuilder::shared_source_thread(bool shared) {
  doc_.shared_source_thread = shared;
  return *this;
}

PipelineBuilder& PipelineBuilder::description(std::string text) {
  doc_.description = std::move(text);
  return *this;
}

std::optional<PipelineDocument> PipelineBuilder::build(Diagnostics& diags,
                                                       const std::vector<std::string>& overrides) const {
  const std::size_t errors_before = diags.error_count();
  PipelineDocument doc = doc_;
  doc.components_where = {name_, 0, 0};
  for (const auto& pending : components_) {
    ComponentDecl c;
    c.id = pending.id;
    c.where = pending.where;
    if (!split_component_id(c.id, c.type, c.name)) {
      diags.error(c.where, fmt::format("component id '{}' must be 'type/name'", c.id));
      continue;
    }
    if (doc.component(c.id)) {
      diags.error(c.where, fmt::format("component '{}' is added twice", c.id));
      continue;
    }
    if (!pending.options.is_object()) {
      diags.error(c.where, fmt::format("{}: options must be a JSON object, found {}", c.id,
                                       pending.options.type_name()));
      continue;
    }
    for (const auto& [key, value] : pending.options.items())
      c.options.push_back({key, value, c.where, c.where});
    doc.components.push_back(std::move(c));
  }
  for (const auto& pending : links_) {
    LinkDecl link;
    link.text = pending.from + " -> " + pending.to;
    link.where = pending.where;
    if (!parse_port_ref(pending.from, link.from) || !parse_port_ref(pending.to, link.to)) {
      diags.error(link.where,
                  fmt::format("malformed link '{}': expected 'type/name.port -> type/name.port'", link.text));
      continue;
    }
    doc.links.push_back(std::move(link));
  }
  apply_overrides(doc, overrides, diags);
  if (diags.error_count() > errors_before) return std::nullopt;
  return doc;
}

namespace {

// What the pipeline parser would not read back as this string when written plain.
bool needs_quotes(const std::string& s) {
  static const std::regex plain("[A-Za-z_/][A-Za-z0-9_./+-]*");
  static const std::regex literal("(?:true|True|TRUE|false|False|FALSE|null|Null|NULL|~)");
  return !std::regex_match(s, plain) || std::regex_match(s, literal);
}

void emit(YAML::Emitter& out, const nlohmann::json& v) {
  switch (v.type()) {
    case nlohmann::json::value_t::null:
      out << YAML::Null;
      break;
    case nlohmann::json::value_t::boolean:
      out << v.get<bool>();
      break;
    case nlohmann::json::value_t::number_integer:
      out << v.get<std::int64_t>();
      break;
    case nlohmann::json::value_t::number_unsigned:
      out << v.get<std::uint64_t>();
      break;
    case nlohmann::json::value_t::number_float:
      out << YAML::Precision(17) << v.get<double>();
      break;
    case nlohmann::json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      if (needs_quotes(s))
        out << YAML::DoubleQuoted << s;
      else
        out << s;
      break;
    }
    case nlohmann::json::value_t::array:
      out << YAML::Flow << YAML::BeginSeq;
      for (const auto& e : v) emit(out, e);
      out << YAML::EndSeq;
      break;
    case nlohmann::json::value_t::object:
      out << YAML::Flow << YAML::BeginMap;
      for (const auto& [k, e] : v.items()) {
        out << YAML::Key << k << YAML::Value;
        emit(out, e);
      }
      out << YAML::EndMap;
      break;
    default:
      out << YAML::Null;
  }
}

}  // namespace

std::string to_yaml(const PipelineDocument& doc) {
  YAML::Emitter out;
  out << YAML::BeginMap;
  out << YAML::Key << "version" << YAML::Value << 1;
  if (!doc.name.empty()) out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << doc.name;
  if (!doc.description.empty())
    out << YAML::Key << "description" << YAML::Value << YAML::DoubleQuoted << doc.description;
  if (!doc.plugin_paths.empty()) {
    out << YAML::Key << "plugins" << YAML::Value << YAML::BeginMap << YAML::Key << "paths" << YAML::Value
        << YAML::Flow << YAML::BeginSeq;
    for (const auto& p : doc.plugin_paths) out << YAML::DoubleQuoted << p;
    out << YAML::EndSeq << YAML::EndMap;
  }
  const PipelineDocument defaults;
  const bool custom_settings = doc.queue_capacity != defaults.queue_capacity ||
                               doc.idle_interval_ns != defaults.idle_interval_ns || doc.shared_source_thread;
  if (custom_settings) {
    out << YAML::Key << "settings" << YAML::Value << YAML::BeginMap;
    if (doc.queue_capacity != defaults.queue_capacity)
      out << YAML::Key << "queue_capacity" << YAML::Value << doc.queue_capacity;
    if (doc.idle_interval_ns != defaults.idle_interval_ns)
      out << YAML::Key << "idle_interval" << YAML::Value << fmt::format("{}ns", doc.idle_interval_ns);
    out << YAML::Key << "source_threads" << YAML::Value << (doc.shared_source_thread ? "shared" : "own");
    out << YAML::EndMap;
  }
  out << YAML::Key << "components" << YAML::Value << YAML::BeginMap;
  for (const auto& c : doc.components) {
    out << YAML::Key << c.id << YAML::Value;
    if (c.options.empty()) {
      out << YAML::Flow << YAML::BeginMap << YAML::EndMap;
      continue;
    }
    out << YAML::BeginMap;
    for (const auto& o : c.options) {
      out << YAML::Key << o.key << YAML::Value;
      emit(out, o.value);
    }
    out << YAML::EndMap;
  }
  out << YAML::EndMap;
  out << YAML::Key << "links" << YAML::Value << YAML::BeginSeq;
  for (const auto& l : doc.links)
    out << fmt::format("{}.{} -> {}.{}", l.from.component, l.from.port, l.to.component, l.to.port);
  out << YAML::EndSeq;
  out << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

}  // namespace cann_debug::host
