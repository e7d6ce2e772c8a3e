#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"

namespace cann_debug::cli {

Verb register_plugins(CLI::App& app, const GlobalOptions& g) {
  auto* cmd = app.add_subcommand(
      "plugins", "List the components of every plugin package found, and whether they can run here");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "One JSON document");
  return {
      cmd, [&g, json] {
        auto registry = load_registry(g);
        nlohmann::json out = {{"components", nlohmann::json::array()}, {"refused", nlohmann::json::array()}};
        for (const auto& [type, entry] : registry->components()) {
          const Manifest& m = entry.manifest();
          Availability a;
          try {
            a = entry.factory->probe_with_defaults();
          } catch (const std::exception& e) {
            a = Availability::no(fmt::format("probe failed: {}", e.what()));
          }
          out["components"].push_back({{"type", type},
                                       {"kind", std::string(to_string(m.kind))},
                                       {"version", m.version},
                                       {"stability", std::string(to_string(m.stability))},
                                       {"available", a.available},
                                       {"reason", a.reason},
                                       {"package", entry.package->name},
                                       {"path", entry.package->path},
                                       {"description", m.description}});
        }
        for (const auto& p : registry->problems())
          out["refused"].push_back({{"path", p.path}, {"message", p.message}});
        if (*json) {
          fmt::print("{}\n", out.dump(2));
          return static_cast<int>(kOk);
        }
        if (out["components"].empty()) {
          fmt::print(stderr, "no plugin packages found (searched: {})\n",
                     fmt::join(registry->searched(), ", "));
          return static_cast<int>(kNotFound);
        }
        fmt::print("{:<22} {:<10} {:<8} {:<12} {}\n", "TYPE", "KIND", "VERSION", "STABILITY", "AVAILABLE");
        for (const auto& c : out["components"]) {
          std::string avail = c["available"].get<bool>() ? "yes" : "no: " + c["reason"].get<std::string>();
          if (c["available"].get<bool>() && !c["reason"].get<std::string>().empty())
            avail += " (" + c["reason"].get<std::string>() + ")";
          fmt::print("{:<22} {:<10} {:<8} {:<12} {}\n", c["type"].get<std::string>(),
                     c["kind"].get<std::string>(), c["version"].get<std::string>(),
                     c["stability"].get<std::string>(), avail);
        }
        return static_cast<int>(kOk);
      }};
}

}  // namespace cann_debug::cli
