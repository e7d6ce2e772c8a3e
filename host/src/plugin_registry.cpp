#include "plugin_registry.hpp"

#include <dlfcn.h>

#include <fmt/format.h>
#include <spdlog/spdlog.h>
#include <algorithm>
#include <boost/dll/library_info.hpp>
#include <boost/dll/runtime_symbol_info.hpp>
#include <boost/dll/shared_library.hpp>
#include <cstdlib>
#include <filesystem>

#include "abi_check.hpp"
#include "elf_section.hpp"

namespace cann_debug::host {

namespace fs = std::filesystem;

namespace {

// Packages stay loaded for the life of the process: payload deleters, vtables and type ids live in
// plugin code (GStreamer makes plugins resident for the same reason). Reachable, so never a leak.
std::vector<boost::dll::shared_library>& resident_libraries() {
  static auto* libs = new std::vector<boost::dll::shared_library>();
  return *libs;
}

constexpr const char* kPackageAlias = "cann_debug_package_v1";
constexpr const char* kAliasSection = "cdplugin";

}  // namespace

PluginRegistry::PluginRegistry() = default;

std::vector<std::string> PluginRegistry::default_search_path() {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CANN_DEBUG_PLUGIN_PATH")) {
    std::string s = env;
    size_t start = 0;
    while (start <= s.size()) {
      size_t end = s.find(':', start);
      if (end == std::string::npos) end = s.size();
      if (end > start) dirs.push_back(s.substr(start, end - start));
      start = end + 1;
    }
  }
  // The packages beside the executable (<bin>/../lib/cann-debug/plugins: the build tree's, or an installed
  // prefix's wherever it was copied). Only when there are none, the build tree and the install prefix this
  // host was configured with, so an installed host never mixes in a build tree's packages.
  boost::system::error_code ec;
  auto exe = boost::dll::program_location(ec);
  std::error_code fec;
  if (!ec) {
    const auto beside = (exe.parent_path().parent_path() / "lib" / "cann-debug" / "plugins").string();
    if (fs::is_directory(beside, fec)) {
      dirs.push_back(beside);
      return dirs;
    }
  }
#ifdef CANN_DEBUG_BUILD_PLUGIN_DIR
  dirs.push_back(CANN_DEBUG_BUILD_PLUGIN_DIR);
#endif
#ifdef CANN_DEBUG_INSTALL_PLUGIN_DIR
  dirs.push_back(CANN_DEBUG_INSTALL_PLUGIN_DIR);
#endif
  return dirs;
}

void PluginRegistry::load_from(const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    std::error_code ec;
    searched_.push_back(p);
    if (fs::is_regular_file(p, ec)) {
      load_package(p);
      continue;
    }
    if (!fs::is_directory(p, ec)) {
      spdlog::debug("plugin path {} does not exist; skipped", p);
      continue;
    }
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(p, ec))
      if (e.is_regular_file() && e.path().extension() == ".so") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto section = read_elf_section(f.string(), CANN_DEBUG_ABI_SECTION);
      if (!section.bytes) {
        spdlog::debug("{}: not a cann-debug package ({}); skipped", f.string(),
                      section.error.empty() ? "no " CANN_DEBUG_ABI_SECTION " section" : section.error);
        continue;
      }
      load_package(f.string());
    }
  }
}

bool PluginRegistry::load_package(const std::string& path_in) {
  std::error_code ec;
  const std::string path = fs::weakly_canonical(path_in, ec).string();
  if (std::find(loaded_paths_.begin(), loaded_paths_.end(), path) != loaded_paths_.end()) return true;
  auto refuse = [&](std::string message) {
    problems_.push_back({path, std::move(message)});
    spdlog::debug("{}: refused: {}", path, problems_.back().message);
    return false;
  };

  // 1. The stamp, read from the file: nothing of the package runs before it passes.
  auto section = read_elf_section(path, CANN_DEBUG_ABI_SECTION);
  if (!section.error.empty()) return refuse(section.error);
  if (!section.bytes)
    return refuse("not a cann-debug package: no " CANN_DEBUG_ABI_SECTION
                  " section (build it with CANN_DEBUG_PACKAGE)");
  cann_debug_abi_stamp stamp{};
  std::string err;
  if (!parse_abi_stamp(*section.bytes, stamp, err)) return refuse(err);
  const cann_debug_abi_stamp host_stamp = current_abi_stamp();
  if (auto why = abi_incompatibility(stamp, host_stamp); !why.empty()) return refuse(why);

  // 2. The exported package accessor must be listed in the alias section, again without loading.
  try {
    boost::dll::library_info info(path);
    auto symbols = info.symbols(kAliasSection);
    if (std::find(symbols.begin(), symbols.end(), kPackageAlias) == symbols.end())
      return refuse(
          fmt::format("no '{}' symbol in section '{}': the package does not export its components "
                      "(use CANN_DEBUG_PACKAGE in one source file)",
                      kPackageAlias, kAliasSection));
  } catch (const std::exception& e) {
    return refuse(fmt::format("cannot read symbols: {}", e.what()));
  }

  // 3. Load for good: resolve every symbol now, keep symbols local, never unload.
  boost::dll::shared_library lib;
  try {
    const auto mode = boost::dll::load_mode::rtld_now | boost::dll::load_mode::rtld_local |
                      static_cast<boost::dll::load_mode::type>(RTLD_NODELETE);
    lib.load(path, mode);
  } catch (const std::exception& e) {
    const char* dl = dlerror();
    return refuse(fmt::format("cannot load: {}", dl ? dl : e.what()));
  }
  const Package* package = nullptr;
  try {
    auto& accessor = lib.get_alias<PackageAccessor>(kPackageAlias);
    package = &accessor();
  } catch (const std::exception& e) {
    return refuse(fmt::format("loading the package failed: {}", e.what()));
  }
  resident_libraries().push_back(lib);
  loaded_paths_.push_back(path);

  auto loaded = std::make_unique<LoadedPackage>();
  loaded->path = path;
  loaded->name = package->name;
  loaded->version = package->version;
  loaded->stamp = stamp;
  const LoadedPackage* owner = loaded.get();
  packages_.push_back(std::move(loaded));

  for (const ComponentFactory* f : package->factories) {
    if (!f) continue;
    const Manifest& m = f->manifest();
    if (auto issues = check_manifest(m); !issues.empty()) {
      for (auto& i : issues) problems_.push_back({path, "invalid manifest: " + i});
      continue;
    }
    if (auto it = components_.find(m.type); it != components_.end()) {
      problems_.push_back(
          {path, fmt::format("component type '{}' is also provided by {}; the first one loaded is used",
                             m.type, it->second.package->path)});
      continue;
    }
    components_.emplace(m.type, ComponentEntry{f, owner});
    if (m.stability == Stability::kDeprecated)
      spdlog::warn("component '{}' ({}) is deprecated", m.type, path);
  }
  spdlog::debug("{}: loaded package {} {} ({} components)", path, owner->name, owner->version,
                package->factories.size());
  return true;
}

void PluginRegistry::add_builtin(const ComponentFactory* factory) {
  if (!builtin_) {
    auto pkg = std::make_unique<LoadedPackage>();
    pkg->path = "(built into cann-debug)";
    pkg->name = "builtin";
    pkg->version = CANN_DEBUG_SDK_VERSION;
    pkg->stamp = current_abi_stamp("builtin", CANN_DEBUG_SDK_VERSION);
    builtin_ = pkg.get();
    packages_.push_back(std::move(pkg));
  }
  components_.emplace(factory->manifest().type, ComponentEntry{factory, builtin_});
}

const ComponentEntry* PluginRegistry::find(const std::string& type) const {
  auto it = components_.find(type);
  return it == components_.end() ? nullptr : &it->second;
}

std::vector<std::string> PluginRegistry::types() const {
  std::vector<std::string> t;
  for (const auto& [k, v] : components_) t.push_back(k);
  return t;
}

}  // namespace cann_debug::host
