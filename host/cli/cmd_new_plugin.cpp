// cann-debug new-plugin: scaffolds an out-of-tree plugin package that builds against the installed SDK
// (find_package(CannDebugSDK)) and loads into the host through CANN_DEBUG_PLUGIN_PATH.
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cann_debug/abi.hpp"
#include "cli_common.hpp"
#include "new_plugin_templates.hpp"

namespace cann_debug::cli {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kKinds = {"sampler",  "reader",  "extractor", "engine",
                                         "analyzer", "advisor", "sink"};

std::string class_name(const std::string& name) {
  std::string out;
  bool upper = true;
  for (char c : name) {
    if (c == '_') {
      upper = true;
      continue;
    }
    out += upper ? static_cast<char>(std::toupper(static_cast<unsigned char>(c))) : c;
    upper = false;
  }
  return out;
}

std::string run_example(const std::string& kind, const std::string& name) {
  if (kind == "sampler" || kind == "sink")
    return fmt::format("cann-debug run pipelines/{}.yaml --output out", name);
  if (kind == "reader")
    return fmt::format("cann-debug run pipelines/{}.yaml --input DIR --output out   # DIR/train.log", name);
  if (kind == "extractor" || kind == "engine")
    return fmt::format(
        "cann-debug run pipelines/{}.yaml --input RUN_DIR --output out   # RUN_DIR/metrics.jsonl", name);
  return fmt::format(
      "cann-debug run pipelines/{}.yaml --input RUN_DIR --output out --var "
      "graphs=<prefix>/share/cann-debug/pipelines/graphs",
      name);
}

std::string fill(std::string_view text, const std::map<std::string, std::string>& values) {
  std::string out(text);
  for (const auto& [key, value] : values) {
    const std::string token = "@" + key + "@";
    for (std::size_t at = out.find(token); at != std::string::npos; at = out.find(token, at + value.size()))
      out.replace(at, token.size(), value);
  }
  return out;
}

std::string_view template_text(const std::string& path) {
  for (const auto& t : plugin_templates())
    if (t.path == path) return t.text;
  throw std::logic_error("new-plugin: template " + path + " is not compiled in");
}

}  // namespace

Verb register_new_plugin(CLI::App& app, const GlobalOptions&) {
  auto* cmd = app.add_subcommand(
      "new-plugin",
      "Scaffold an out-of-tree plugin package: CMakeLists (find_package(CannDebugSDK)), one component, a "
      "GoogleTest with the SDK's harness, a sample pipeline and a README");
  auto kind = std::make_shared<std::string>();
  auto name = std::make_shared<std::string>();
  auto dir = std::make_shared<std::string>();
  cmd->add_option("--kind", *kind, "What the component is")->required()->check(CLI::IsMember(kKinds));
  cmd->add_option("name", *name, "The component type and package name: [a-z][a-z0-9_]*")->required();
  cmd->add_option("--dir", *dir, "Where to write the project (default: ./NAME); must not exist or be empty");
  return {
      cmd, [kind, name, dir] {
        static const std::regex kName("[a-z][a-z0-9_]*");
        if (!std::regex_match(*name, kName)) {
          fmt::print(stderr, "new-plugin: '{}' is not a valid component type: expected [a-z][a-z0-9_]*\n",
                     *name);
          return static_cast<int>(kUsage);
        }
        const fs::path root = dir->empty() ? fs::path(*name) : fs::path(*dir);
        std::error_code ec;
        if (fs::exists(root, ec) && !(fs::is_directory(root, ec) && fs::is_empty(root, ec))) {
          fmt::print(stderr, "new-plugin: {} already exists and is not an empty folder; nothing written\n",
                     root.string());
          return static_cast<int>(kUsage);
        }
        const std::map<std::string, std::string> values = {{"NAME", *name},
                                                           {"CLASS", class_name(*name)},
                                                           {"KIND", *kind},
                                                           {"SDK_VERSION", CANN_DEBUG_SDK_VERSION},
                                                           {"RUN_EXAMPLE", run_example(*kind, *name)}};
        const std::vector<std::pair<std::string, std::string>> files = {
            {"CMakeLists.txt", "common/CMakeLists.txt.in"},
            {*name + ".hpp", "common/component.hpp.in"},
            {*name + ".cpp", *kind + "/component.cpp.in"},
            {"package.cpp", "common/package.cpp.in"},
            {"test/" + *name + "_test.cpp", *kind + "/test.cpp.in"},
            {"pipelines/" + *name + ".yaml", *kind + "/pipeline.yaml.in"},
            {"README.md", "common/README.md.in"}};
        for (const auto& [out, tpl] : files) {
          const fs::path path = root / out;
          fs::create_directories(path.parent_path(), ec);
          std::ofstream f(path, std::ios::binary);
          f << fill(template_text(tpl), values);
          if (!f) {
            fmt::print(stderr, "new-plugin: cannot write {}\n", path.string());
            return static_cast<int>(kRunFailed);
          }
          fmt::print("wrote {}\n", path.string());
        }
        std::ofstream(root / ".gitignore") << "build/\n";
        fmt::print(
            "\nNext:\n  cmake -S {0} -B {0}/build && cmake --build {0}/build && ctest --test-dir {0}/build\n"
            "  CANN_DEBUG_PLUGIN_PATH={0}/build/plugins cann-debug plugins\n",
            root.string());
        return static_cast<int>(kOk);
      }};
}

}  // namespace cann_debug::cli
