#include "graph_extensions.hpp"

#include <fstream>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug::plugins::bayes_detail {

using nlohmann::json;

std::map<std::string, json> variable_extensions(const std::string& graph_path) {
  std::map<std::string, json> out;
  if (!graph_path.ends_with(".json")) return out;
  std::ifstream in(graph_path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read the graph", graph_path));
  const json doc = json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded()) throw std::runtime_error(fmt::format("{}: invalid JSON", graph_path));
  const auto vars = doc.find("variables");
  if (vars == doc.end() || !vars->is_array()) return out;
  for (const json& v : *vars) {
    if (!v.is_object() || !v.contains("name") || !v["name"].is_string()) continue;
    json ext = json::object();
    for (const auto& [key, value] : v.items())
      if (!key.empty() && key[0] == '_') ext[key] = value;
    if (!ext.empty()) out[v["name"].get<std::string>()] = std::move(ext);
  }
  return out;
}

std::set<std::string> context_variables(const std::map<std::string, json>& extensions) {
  std::set<std::string> out;
  for (const auto& [name, ext] : extensions)
    if (auto it = ext.find("_context"); it != ext.end() && it->is_boolean() && it->get<bool>())
      out.insert(name);
  return out;
}

void add_variable_extensions(json& graph_doc, const std::map<std::string, json>& extensions) {
  auto vars = graph_doc.find("variables");
  if (vars == graph_doc.end() || !vars->is_array()) return;
  for (json& v : *vars) {
    if (!v.is_object() || !v.contains("name") || !v["name"].is_string()) continue;
    const auto ext = extensions.find(v["name"].get<std::string>());
    if (ext == extensions.end()) continue;
    for (const auto& [key, value] : ext->second.items())
      if (!v.contains(key)) v[key] = value;
  }
}

}  // namespace cann_debug::plugins::bayes_detail
