#include "cann_debug/manifest.hpp"

#include <fmt/format.h>
#include <regex>
#include <set>

#include "cann_debug/messages.hpp"

namespace cann_debug {

std::string_view to_string(ComponentKind k) {
  switch (k) {
    case ComponentKind::kSampler:
      return "sampler";
    case ComponentKind::kReader:
      return "reader";
    case ComponentKind::kExtractor:
      return "extractor";
    case ComponentKind::kEngine:
      return "engine";
    case ComponentKind::kAnalyzer:
      return "analyzer";
    case ComponentKind::kAdvisor:
      return "advisor";
    case ComponentKind::kSink:
      return "sink";
  }
  return "?";
}

std::string_view to_string(Stability s) {
  switch (s) {
    case Stability::kDevelopment:
      return "development";
    case Stability::kAlpha:
      return "alpha";
    case Stability::kBeta:
      return "beta";
    case Stability::kStable:
      return "stable";
    case Stability::kDeprecated:
      return "deprecated";
    case Stability::kUnmaintained:
      return "unmaintained";
  }
  return "?";
}

const OptionSpec* Manifest::option(std::string_view name) const {
  for (const auto& o : options)
    if (o.name == name) return &o;
  return nullptr;
}

int Manifest::input_index(std::string_view name) const {
  for (size_t i = 0; i < inputs.size(); ++i)
    if (inputs[i].name == name) return static_cast<int>(i);
  return -1;
}

int Manifest::output_index(std::string_view name) const {
  for (size_t i = 0; i < outputs.size(); ++i)
    if (outputs[i].name == name) return static_cast<int>(i);
  return -1;
}

namespace {
const std::regex& type_pattern() {
  static const std::regex re("[a-z][a-z0-9_.]{0,62}");
  return re;
}
const std::regex& name_pattern() {
  static const std::regex re("[a-z][a-z0-9_]{0,62}");
  return re;
}
const std::regex& message_type_pattern() {
  static const std::regex re("[a-z][a-z0-9_.]*/[0-9]+");
  return re;
}
}  // namespace

std::vector<std::string> manifest_style_problems(const Manifest& m) {
  std::vector<std::string> problems;
  if (m.description.find('\n') != std::string::npos)
    problems.push_back(
        fmt::format("{}: description has several lines (one line; prose goes in the "
                    "package's README.md)",
                    m.type));
  if (m.description.size() > kMaxDescriptionChars)
    problems.push_back(
        fmt::format("{}: description has {} characters (at most {}; prose goes in the "
                    "package's README.md)",
                    m.type, m.description.size(), kMaxDescriptionChars));
  return problems;
}

std::vector<std::string> check_manifest(const Manifest& m) {
  std::vector<std::string> problems;
  auto bad = [&](std::string msg) { problems.push_back(fmt::format("{}: {}", m.type, msg)); };
  if (!std::regex_match(m.type, type_pattern()))
    bad(fmt::format("type '{}' must match [a-z][a-z0-9_.]* (at most 63 characters)", m.type));
  if (m.description.empty()) bad("description is empty");
  if (m.version.empty()) bad("version is empty");
  const std::string_view kind = to_string(m.kind);
  const char* article = kind.front() == 'a' || kind.front() == 'e' ? "an" : "a";
  if (is_source(m.kind) && !m.inputs.empty()) bad(fmt::format("{} {} has no input ports", article, kind));
  if (!is_source(m.kind) && m.inputs.empty())
    bad(fmt::format("{} {} needs at least one input port", article, kind));
  if (m.kind != ComponentKind::kSink && m.outputs.empty())
    bad(fmt::format("{} {} needs at least one output port", article, kind));
  if (m.concurrency.mode == Concurrency::Mode::kLimited && m.concurrency.limit == 0)
    bad("concurrency limit must be at least 1");
  std::set<std::string> ports;
  for (const auto& p : m.inputs) {
    if (!std::regex_match(p.name, name_pattern()))
      bad(fmt::format("input port name '{}' is not [a-z][a-z0-9_]*", p.name));
    if (!ports.insert(p.name).second) bad(fmt::format("port name '{}' is used twice", p.name));
    if (p.accepts.empty()) bad(fmt::format("input port '{}' accepts no message type", p.name));
    for (const auto& t : p.accepts)
      if (!std::regex_match(t, message_type_pattern()))
        bad(fmt::format("input port '{}': message type '{}' is not <name>/<major>", p.name, t));
  }
  for (const auto& p : m.outputs) {
    if (!std::regex_match(p.name, name_pattern()))
      bad(fmt::format("output port name '{}' is not [a-z][a-z0-9_]*", p.name));
    if (!ports.insert(p.name).second) bad(fmt::format("port name '{}' is used twice", p.name));
    if (!std::regex_match(p.produces, message_type_pattern()))
      bad(fmt::format("output port '{}': message type '{}' is not <name>/<major>", p.name, p.produces));
  }
  std::set<std::string> opts;
  for (const auto& o : m.options) {
    if (!std::regex_match(o.name, name_pattern()))
      bad(fmt::format("option name '{}' is not [a-z][a-z0-9_]*", o.name));
    if (!opts.insert(o.name).second) bad(fmt::format("option '{}' is declared twice", o.name));
    if (o.name == "on_error") bad("option name 'on_error' is reserved for the host's error policy");
    if (o.description.empty()) bad(fmt::format("option '{}' has no description", o.name));
    if (o.type == OptionType::kEnum && o.enum_values.empty())
      bad(fmt::format("enum option '{}' lists no values", o.name));
    if (o.required && !o.default_value.is_null())
      bad(fmt::format("option '{}' is required but has a default", o.name));
    if (!o.default_value.is_null()) {
      std::string err;
      auto v = convert_option(o, o.default_value, err);
      if (!v)
        bad(fmt::format("default of option '{}': {}", o.name, err));
      else if (auto b = check_option_bounds(o, *v); !b.empty())
        bad(fmt::format("default of option '{}': {}", o.name, b));
    }
    if (o.min && o.max && *o.min > *o.max) bad(fmt::format("option '{}': min is above max", o.name));
  }
  return problems;
}

}  // namespace cann_debug

namespace cann_debug {

nlohmann::json manifest_to_json(const Manifest& m) {
  using nlohmann::json;
  json inputs = json::array(), outputs = json::array(), options = json::array();
  for (const auto& p : m.inputs)
    inputs.push_back(
        {{"name", p.name}, {"accepts", p.accepts}, {"required", p.required}, {"description", p.description}});
  for (const auto& p : m.outputs)
    outputs.push_back({{"name", p.name}, {"produces", p.produces}, {"description", p.description}});
  for (const auto& o : m.options) {
    json j = {{"name", o.name},
              {"type", std::string(to_string(o.type))},
              {"required", o.required},
              {"default", o.default_value},
              {"description", o.description}};
    if (o.min) j["min"] = *o.min;
    if (o.max) j["max"] = *o.max;
    if (!o.enum_values.empty()) j["values"] = o.enum_values;
    options.push_back(std::move(j));
  }
  std::string concurrency = m.concurrency.mode == Concurrency::Mode::kSerial        ? "serial"
                            : m.concurrency.mode == Concurrency::Mode::kLightweight ? "lightweight"
                            : m.concurrency.mode == Concurrency::Mode::kReentrant
                                ? "reentrant"
                                : fmt::format("max:{}", m.concurrency.limit);
  return {{"type", m.type},
          {"kind", std::string(to_string(m.kind))},
          {"version", m.version},
          {"stability", std::string(to_string(m.stability))},
          {"description", m.description},
          {"inputs", inputs},
          {"outputs", outputs},
          {"options", options},
          {"concurrency", concurrency},
          {"sample_yaml", m.sample_yaml}};
}

}  // namespace cann_debug
