#include "scenario_router.hpp"

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

/// The first non-blank line of a JSON-lines file as an object (null when it is not one).
json first_object(const fs::path& file) {
  std::ifstream in(file);
  std::string line;
  for (int n = 0; n < 16 && std::getline(in, line); ++n) {
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    if (line.size() > (1u << 20)) return nullptr;
    auto j = json::parse(line, nullptr, false);
    return j.is_object() ? j : json(nullptr);
  }
  return nullptr;
}

/// Ranks named in per-rank trace files: rank<N>.trace.json, rank<N>.*.json, *_rank<N>.*json(.gz).
std::set<int> trace_ranks(const fs::path& folder) {
  static const std::regex kRankFile(R"((^|[^a-z])rank[_-]?(\d+)[^/]*\.json(\.gz)?$)", std::regex::icase);
  std::set<int> ranks;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(folder, ec)) {
    std::smatch m;
    const std::string name = e.path().filename().string();
    if (e.is_regular_file(ec) && std::regex_search(name, m, kRankFile)) ranks.insert(std::stoi(m[2].str()));
  }
  return ranks;
}

bool has_any(const fs::path& folder, std::initializer_list<const char*> names, int depth = 3) {
  std::error_code ec;
  for (auto it = fs::recursive_directory_iterator(folder, fs::directory_options::skip_permission_denied, ec);
       !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    if (it.depth() >= depth) it.disable_recursion_pending();
    const auto name = it->path().filename().string();
    for (const char* n : names)
      if (name == n) return true;
  }
  return false;
}

}  // namespace

std::optional<Route> route_scenario(const std::string& folder_text, std::string& why_not) {
  const fs::path folder(folder_text);
  std::error_code ec;
  if (!fs::is_directory(folder, ec)) {
    why_not = fmt::format("{}: not a folder", folder_text);
    return std::nullopt;
  }
  // 1. Several ranks' traces, or a cluster analysis: communication across ranks is the question.
  if (auto ranks = trace_ranks(folder); ranks.size() >= 2)
    return Route{"distributed", fmt::format("{} per-rank trace files", ranks.size())};
  if (has_any(folder, {"cluster_step_trace_time.csv", "cluster_communication.json",
                       "cluster_communication_matrix.json"}))
    return Route{"distributed", "an Ascend cluster analysis output"};

  // 2. The per-step / per-request log says what kind of run it was.
  const fs::path log = folder / "metrics.jsonl";
  if (fs::is_regular_file(log, ec)) {
    const json first = first_object(log);
    if (first.is_object()) {
      if (first.contains("rank")) return Route{"distributed", "metrics.jsonl has a rank per step"};
      if (first.contains("request_id") || first.contains("latency_ms"))
        return Route{"inference", "metrics.jsonl has one record per request"};
      if (first.contains("loss") || first.contains("grad_norm"))
        return Route{"training", "metrics.jsonl has a loss per step"};
    }
  }
  for (const char* name : {"log.csv", "trainer_state.json"})
    if (fs::is_regular_file(folder / name, ec))
      return Route{"training", fmt::format("a training log ({})", name)};

  // 3. Last resort: what the person who launched the run wrote down.
  const fs::path config = folder / "config.json";
  if (fs::is_regular_file(config, ec)) {
    std::ifstream in(config);
    auto doc = json::parse(in, nullptr, false);
    if (doc.is_object() && doc.contains("scenario") && doc["scenario"].is_string()) {
      const std::string s = doc["scenario"];
      if (s == "training" || s == "inference" || s == "distributed")
        return Route{s, "config.json names it (no signal in the data did)"};
    }
  }
  why_not = fmt::format(
      "{}: cannot tell the scenario (no per-rank traces, no cluster analysis, no metrics.jsonl with loss, "
      "request or rank fields, no config.json scenario); pass --scenario training|inference|distributed",
      folder_text);
  return std::nullopt;
}

}  // namespace cann_debug::cli
