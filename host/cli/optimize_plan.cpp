#include "optimize_plan.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "cann_debug/whole_file.hpp"
#include "config_patch.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

std::string env_name(const std::string& prefix, const std::string& key) {
  std::string out = prefix;
  for (char c : key)
    out += (c == '.' || c == '-') ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

TemplateCatalog load_template_catalog(const std::string& kb_dir) {
  TemplateCatalog catalog;
  if (kb_dir.empty()) return catalog;
  catalog.file = (fs::path(kb_dir) / "solution_templates.json").string();
  json doc;
  try {
    doc = json::parse(read_whole_file(catalog.file));
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: byte {}: not valid JSON", catalog.file, e.byte));
  }
  if (!doc.is_object() || !doc.contains("templates") || !doc["templates"].is_object())
    throw std::runtime_error(fmt::format("{}: expected an object with \"templates\"", catalog.file));
  catalog.templates = doc["templates"];
  return catalog;
}

json load_diagnosis(const std::string& path) {
  json doc;
  try {
    doc = json::parse(read_whole_file(path));
  } catch (const json::parse_error& e) {
    throw std::runtime_error(fmt::format("{}: byte {}: not valid JSON", path, e.byte));
  }
  if (!doc.is_object())
    throw std::runtime_error(fmt::format("{}: expected a report.json or `diagnose --json` object", path));
  if (!doc.contains("suggestions") || !doc["suggestions"].is_array())
    throw std::runtime_error(
        fmt::format("{}: expected a \"suggestions\" array (report.json or diagnose --json)", path));
  for (std::size_t i = 0; i < doc["suggestions"].size(); ++i) {
    const json& s = doc["suggestions"][i];
    if (!s.is_object() || !s.contains("id") || !s["id"].is_string())
      throw std::runtime_error(
          fmt::format("{}: at /suggestions/{}: expected an object with a string \"id\"", path, i));
    if (s.contains("config_patch") && !s["config_patch"].is_object())
      throw std::runtime_error(
          fmt::format("{}: at /suggestions/{}/config_patch: expected an object", path, i));
  }
  return doc;
}

std::vector<Candidate> plan_candidates(const json& diagnosis, const TemplateCatalog& catalog,
                                       const WorkloadInterface& workload, const std::set<std::string>& only,
                                       std::size_t max_suggestions) {
  std::vector<Candidate> out;
  Candidate baseline;
  baseline.id = "baseline";
  out.push_back(baseline);
  const std::set<std::string> placeholders = workload.command.placeholders();
  std::size_t kept = 0;
  for (const json& s : diagnosis["suggestions"]) {
    Candidate c;
    c.id = s["id"].get<std::string>();
    const auto slash = c.id.find('/');
    c.template_id = slash == std::string::npos ? c.id : c.id.substr(slash + 1);
    c.root_cause = s.value("root_cause", slash == std::string::npos ? std::string() : c.id.substr(0, slash));
    if (!only.empty() && !only.contains(c.id) && !only.contains(c.template_id)) continue;
    c.title = s.value("title", "");
    c.patch = s.value("config_patch", json::object());
    c.flat = flatten_patch(c.patch);
    if (s.contains("expected_improvement") && s["expected_improvement"].is_number())
      c.expected_improvement = s["expected_improvement"].get<double>();
    c.improvement_source = s.value("improvement_source", "");
    c.target_metric = s.value("target_metric", "");
    std::string better = s.value("target_better", "");
    const json* tpl = catalog.templates.is_object() && catalog.templates.contains(c.template_id)
                          ? &catalog.templates[c.template_id]
                          : nullptr;
    if (better.empty() && tpl) better = tpl->value("target_better", "");
    if (c.target_metric.empty() && tpl) c.target_metric = tpl->value("target_metric", "");
    if (auto b = parse_better(better.empty() ? "lower" : better)) c.better = *b;

    auto refuse = [&](std::string why) {
      c.applicable = false;
      c.reason = std::move(why);
    };
    std::vector<std::string> problems;
    if (tpl)
      problems = type_problems(c.patch, declared_types(tpl->value("config_patch", json::object()),
                                                       tpl->value("parameters", json::object())));
    for (const auto& [key, value] : c.flat) {
      try {
        (void)argument_text(value);
      } catch (const std::invalid_argument& e) {
        problems.push_back(fmt::format("{}: {}", key, e.what()));
      }
      const bool passed = placeholders.contains(key) || key.starts_with("env.") ||
                          !workload.config_file.empty() || !workload.env_prefix.empty();
      (passed ? c.passed_keys : c.unpassed_keys).push_back(key);
    }
    if (c.flat.empty()) {
      refuse("it has no config patch (a code change: see its snippet)");
    } else if (!problems.empty()) {
      refuse(fmt::format("its patch is refused: {}", fmt::join(problems, "; ")));
    } else if (c.passed_keys.empty()) {
      const std::string first = c.unpassed_keys.front();
      refuse(fmt::format(
          "the workload takes none of its keys ({}): add a placeholder such as [--set {}={{{}}}] to "
          "--workload, or use --config or --env-prefix",
          fmt::join(c.unpassed_keys, ", "), first, first));
    } else if (c.target_metric.empty()) {
      refuse("it names no target metric to measure");
    } else if (kept >= max_suggestions) {
      refuse(fmt::format("beyond --suggestions {}", max_suggestions));
    }
    if (c.applicable) ++kept;
    out.push_back(std::move(c));
  }
  return out;
}

RunInvocation invocation_of(const Candidate& candidate, const WorkloadInterface& workload,
                            const std::string& run_dir, int repeat) {
  RunInvocation inv;
  const fs::path output = fs::path(run_dir) / "output";
  fs::create_directories(output);
  if (!workload.config_file.empty()) {
    const std::string original = read_whole_file(workload.config_file);
    inv.config_copy = (fs::path(run_dir) / fs::path(workload.config_file).filename()).string();
    const std::string text = candidate.flat.empty()
                                 ? original
                                 : patch_config_text(original, is_yaml_path(workload.config_file),
                                                     candidate.patch, workload.config_file)
                                       .text;
    std::ofstream out(inv.config_copy, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error(fmt::format("{}: cannot write", inv.config_copy));
  }
  inv.argv = workload.command.expand([&](const std::string& name) -> std::optional<std::string> {
    if (name == "output") return output.string();
    if (name == "config") return inv.config_copy.empty() ? std::nullopt : std::optional(inv.config_copy);
    if (name == "here") return workload.here;
    if (name == "sandbox") return run_dir;
    if (name == "repeat") return std::to_string(repeat);
    if (auto it = candidate.flat.find(name); it != candidate.flat.end()) return argument_text(it->second);
    if (auto it = workload.baseline_values.find(name); it != workload.baseline_values.end())
      return it->second;
    if (const json* v = workload.config.find(name); v && !v->is_object()) return argument_text(*v);
    return std::nullopt;
  });
  for (const auto& [key, value] : candidate.flat) {
    if (key.starts_with("env."))
      inv.env.emplace_back(key.substr(4), argument_text(value));
    else if (!workload.env_prefix.empty())
      inv.env.emplace_back(env_name(workload.env_prefix, key), argument_text(value));
  }
  return inv;
}

}  // namespace cann_debug::cli
