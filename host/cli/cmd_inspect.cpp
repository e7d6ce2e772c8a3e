#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_common.hpp"

namespace cann_debug::cli {

namespace {

// A package's README travels beside it: <dir>/cdp_x.so -> <dir>/cdp_x.README.md
// (cmake/CannDebugPlugin.cmake).
std::string readme_of(const host::ComponentEntry& e) {
  if (!e.package || e.package->path.empty()) return {};
  std::filesystem::path p(e.package->path);
  p.replace_filename(p.stem().string() + ".README.md");
  std::error_code ec;
  return std::filesystem::is_regular_file(p, ec) ? p.string() : std::string();
}

std::string show_default(const OptionSpec& o) {
  if (o.required) return "(required)";
  if (o.default_value.is_null()) return "(none)";
  // A duration default is written either as text ("1s") or as an integer of ns.
  if (o.type == OptionType::kDuration && o.default_value.is_number())
    return fmt::format("{}ns", o.default_value.dump());
  return o.default_value.dump();
}

void print_text(const Manifest& m, const host::ComponentEntry& e) {
  fmt::print("{} — {}\n\n", m.type, m.description);
  fmt::print("  kind         {}\n  version      {}\n  stability    {}\n  package      {} {} ({})\n",
             to_string(m.kind), m.version, to_string(m.stability), e.package->name, e.package->version,
             e.package->path);
  const std::string readme = readme_of(e);
  fmt::print("  readme       {}\n", readme.empty()
                                        ? std::string("(none)")
                                        : readme + fmt::format(" (cann-debug inspect {} --readme)", m.type));
  std::string conc = m.concurrency.mode == Concurrency::Mode::kSerial        ? "serial"
                     : m.concurrency.mode == Concurrency::Mode::kLightweight ? "lightweight"
                     : m.concurrency.mode == Concurrency::Mode::kReentrant
                         ? "reentrant"
                         : fmt::format("max {}", m.concurrency.limit);
  fmt::print("  concurrency  {}\n\nInput ports:\n", conc);
  if (m.inputs.empty()) fmt::print("  (none: a source)\n");
  for (const auto& p : m.inputs)
    fmt::print("  {:<14} accepts {}{}\n  {:<14} {}\n", p.name, fmt::join(p.accepts, " | "),
               p.required ? " (required)" : "", "", p.description);
  fmt::print("\nOutput ports:\n");
  if (m.outputs.empty()) fmt::print("  (none: a sink)\n");
  for (const auto& p : m.outputs)
    fmt::print("  {:<14} produces {}\n  {:<14} {}\n", p.name, p.produces, "", p.description);
  fmt::print("\nOptions:\n");
  if (m.options.empty()) fmt::print("  (none)\n");
  for (const auto& o : m.options) {
    std::string extra;
    if (!o.enum_values.empty()) extra = fmt::format(" one of [{}]", fmt::join(o.enum_values, ", "));
    if (o.min || o.max)
      extra += fmt::format(" range [{}, {}]", o.min ? fmt::format("{}", *o.min) : "-inf",
                           o.max ? fmt::format("{}", *o.max) : "inf");
    fmt::print("  {:<16} {:<13} default {}{}\n  {:<16} {}\n", o.name, to_string(o.type), show_default(o),
               extra, "", o.description);
  }
  if (!m.sample_yaml.empty()) fmt::print("\nSample YAML:\n{}\n", m.sample_yaml);
}

}  // namespace

Verb register_inspect(CLI::App& app, const GlobalOptions& g) {
  auto* cmd =
      app.add_subcommand("inspect", "Describe a component type: ports, options with defaults, sample YAML");
  auto type = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  auto readme = std::make_shared<bool>(false);
  cmd->add_option("type", *type, "Component type, e.g. jsonl")->required();
  cmd->add_flag("--json", *json, "The manifest as JSON");
  cmd->add_flag("--readme", *readme, "Print the README of the package that provides the type");
  return {cmd, [&g, type, json, readme] {
            auto registry = load_registry(g);
            const auto* e = registry->find(*type);
            if (!e) {
              auto types = registry->types();
              std::string hint = closest_match(*type, types);
              fmt::print(stderr, "error: unknown component type '{}'{} (valid types: {})\n", *type,
                         hint.empty() ? "" : fmt::format("; did you mean '{}'?", hint),
                         fmt::join(types, ", "));
              return static_cast<int>(kNotFound);
            }
            if (*readme) {
              const std::string path = readme_of(*e);
              if (path.empty()) {
                fmt::print(stderr, "error: package '{}' ({}) has no README (expected {} beside it)\n",
                           e->package->name, e->package->path, "<package>.README.md");
                return static_cast<int>(kNotFound);
              }
              std::ifstream in(path);
              std::stringstream text;
              text << in.rdbuf();
              fmt::print("{}", text.str());
              return static_cast<int>(kOk);
            }
            if (*json) {
              auto j = manifest_to_json(e->manifest());
              j["package"] = {
                  {"name", e->package->name}, {"version", e->package->version}, {"path", e->package->path}};
              const std::string path = readme_of(*e);
              j["package"]["readme"] = path.empty() ? nlohmann::json(nullptr) : nlohmann::json(path);
              fmt::print("{}\n", j.dump(2));
            } else {
              print_text(e->manifest(), *e);
            }
            return static_cast<int>(kOk);
          }};
}

}  // namespace cann_debug::cli
