#include "causal_graph_notes.hpp"

#include <fstream>
#include <stdexcept>

#include <nlohmann/json.hpp>

namespace cann_debug::plugins::scenario {

std::map<std::string, VariableNote> read_graph_notes(const std::string& path) {
  std::map<std::string, VariableNote> notes;
  if (path.empty() || !path.ends_with(".json")) return notes;
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open the causal graph");
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path + ": not JSON at byte " + std::to_string(e.byte));
  }
  if (!doc.is_object() || !doc.contains("variables") || !doc["variables"].is_array())
    throw std::runtime_error(path + ": expected a causal graph object with a 'variables' array");
  for (const auto& v : doc["variables"]) {
    if (!v.is_object() || !v.contains("name") || !v["name"].is_string()) continue;
    VariableNote note;
    note.description = v.value("description", "");
    if (v.contains("discretization") && v["discretization"].is_object())
      note.feature = v["discretization"].value("feature", "");
    notes[v["name"].get<std::string>()] = std::move(note);
  }
  return notes;
}

}  // namespace cann_debug::plugins::scenario
