// Finds plugin packages, checks their ABI stamp without running their code, loads them for good, and
// indexes their component factories by type.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cann_debug/abi.hpp"
#include "cann_debug/component.hpp"
#include "cann_debug/package.hpp"

namespace cann_debug::host {

struct LoadedPackage {
  std::string path;
  std::string name;
  std::string version;
  cann_debug_abi_stamp stamp{};
};

struct ComponentEntry {
  const ComponentFactory* factory = nullptr;
  const LoadedPackage* package = nullptr;
  const Manifest& manifest() const { return factory->manifest(); }
};

struct PackageProblem {
  std::string path;
  std::string message;
};

class PluginRegistry {
 public:
  PluginRegistry();
  PluginRegistry(const PluginRegistry&) = delete;
  PluginRegistry& operator=(const PluginRegistry&) = delete;

  /// Default search path: CANN_DEBUG_PLUGIN_PATH (colon-separated), the build tree, the install prefix.
  static std::vector<std::string> default_search_path();

  /// Loads every package (*.so) in each directory (or the file itself if a path names a file).
  /// Files without a cann-debug ABI section are skipped silently when found by a directory scan.
  void load_from(const std::vector<std::string>& paths);
  /// Loads one package file. Returns false and records a problem when refused.
  bool load_package(const std::string& path);

  /// Adds a component compiled into the host itself (package "builtin").
  void add_builtin(const ComponentFactory* factory);

  const ComponentEntry* find(const std::string& type) const;
  std::vector<std::string> types() const;
  const std::map<std::string, ComponentEntry>& components() const { return components_; }
  const std::vector<std::unique_ptr<LoadedPackage>>& packages() const { return packages_; }
  const std::vector<PackageProblem>& problems() const { return problems_; }
  const std::vector<std::string>& searched() const { return searched_; }

 private:
  std::vector<std::unique_ptr<LoadedPackage>> packages_;
  std::map<std::string, ComponentEntry> components_;
  std::vector<PackageProblem> problems_;
  std::vector<std::string> searched_;
  std::vector<std::string> loaded_paths_;
  const LoadedPackage* builtin_ = nullptr;
};

}  // namespace cann_debug::host
