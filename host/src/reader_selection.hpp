// Picks the reader that understands a file or folder, by asking every reader's factory to sniff it.
#pragma once

#include <string>
#include <vector>

#include "plugin_registry.hpp"

namespace cann_debug::host {

struct ReaderCandidate {
  const ComponentEntry* entry = nullptr;
  int score = 0;
};

/// Readers that can read `path`, best first (ties broken by type name). Empty when none can.
std::vector<ReaderCandidate> rank_readers(const PluginRegistry& registry, const std::string& path);

}  // namespace cann_debug::host
