#include "case_folders.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cann_debug::cli {

namespace fs = std::filesystem;

namespace {

const nlohmann::json* dotted(const nlohmann::json& doc, const std::string& key) {
  if (doc.is_object()) {
    if (auto it = doc.find(key); it != doc.end()) return &*it;  // keys that contain dots themselves
  }
  const nlohmann::json* node = &doc;
  std::size_t start = 0;
  while (start <= key.size()) {
    const std::size_t dot = std::min(key.find('.', start), key.size());
    const std::string part = key.substr(start, dot - start);
    if (!node->is_object()) return nullptr;
    auto it = node->find(part);
    if (it == node->end()) return nullptr;
    node = &*it;
    start = dot + 1;
  }
  return node;
}

std::string as_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  if (v.is_null()) return "null";
  return v.dump();
}

}  // namespace

std::string case_axis_value(const LabelledCase& c, const std::string& axis) {
  if (const auto* v = dotted(c.variant, axis)) return as_text(*v);
  std::ifstream in(fs::path(c.folder) / "config.json");
  if (!in) return "";
  const auto config = nlohmann::json::parse(in, nullptr, false);
  if (config.is_discarded()) return "";
  if (const auto* v = dotted(config, axis)) return as_text(*v);
  return "";
}

bool find_labelled_cases(const std::string& root, const std::string& scenario, std::vector<LabelledCase>& out,
                         std::string& problem) {
  std::vector<fs::path> labels;
  std::error_code ec;
  if (fs::is_regular_file(fs::path(root) / "expected.json", ec))
    labels.push_back(fs::path(root) / "expected.json");
  for (auto it = fs::recursive_directory_iterator(root, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= 3) it.disable_recursion_pending();
    if (it->is_directory(ec) && fs::is_regular_file(it->path() / "expected.json", ec))
      labels.push_back(it->path() / "expected.json");
  }
  std::sort(labels.begin(), labels.end());
  labels.erase(std::unique(labels.begin(), labels.end()), labels.end());
  for (const auto& file : labels) {
    nlohmann::json doc;
    try {
      std::ifstream in(file);
      doc = nlohmann::json::parse(in);
    } catch (const nlohmann::json::exception& e) {
      problem =
          fmt::format("{}: expected a JSON object with root_cause and scenario: {}", file.string(), e.what());
      return false;
    }
    if (!doc.is_object() || !doc.contains("root_cause") || !doc["root_cause"].is_string()) {
      problem = fmt::format("{}: expected a JSON object with a string 'root_cause'", file.string());
      return false;
    }
    LabelledCase c{file.parent_path().string(), doc.value("scenario", ""), doc["root_cause"]};
    if (doc.contains("variant") && doc["variant"].is_object()) c.variant = doc["variant"];
    if (auto it = doc.find("hidden"); it != doc.end()) {
      if (!it->is_object()) {
        problem = fmt::format("{}: 'hidden': expected an object of variable -> state names", file.string());
        return false;
      }
      for (const auto& [name, state] : it->items()) {
        if (!state.is_string()) {
          problem = fmt::format("{}: 'hidden.{}': expected a state name (a string), got {}", file.string(),
                                name, state.dump());
          return false;
        }
        c.hidden[name] = state.get<std::string>();
      }
    }
    if (!scenario.empty() && c.scenario != scenario) continue;
    out.push_back(std::move(c));
  }
  if (out.empty()) {
    problem = fmt::format("{}: no case folder with an expected.json{}", root,
                          scenario.empty() ? "" : fmt::format(" of scenario '{}'", scenario));
    return false;
  }
  return true;
}

}  // namespace cann_debug::cli
