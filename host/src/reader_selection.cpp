#include "reader_selection.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <spdlog/spdlog.h>

namespace cann_debug::host {

std::vector<ReaderCandidate> rank_readers(const PluginRegistry& registry, const std::string& path) {
  SniffInput in;
  in.path = path;
  std::error_code ec;
  in.is_directory = std::filesystem::is_directory(path, ec);
  std::string head;
  if (!in.is_directory) {
    std::ifstream f(path, std::ios::binary);
    head.resize(64 * 1024);
    f.read(head.data(), static_cast<std::streamsize>(head.size()));
    head.resize(static_cast<std::size_t>(std::max<std::streamsize>(f.gcount(), 0)));
  }
  in.head = head;
  std::vector<ReaderCandidate> out;
  for (const auto& [type, entry] : registry.components()) {
    if (entry.manifest().kind != ComponentKind::kReader) continue;
    int score = 0;
    try {
      score = entry.factory->sniff(in);
    } catch (const std::exception& e) {
      spdlog::warn("reader '{}' failed to sniff {}: {}", type, path, e.what());
    }
    if (score > 0) out.push_back({&entry, std::min(score, 100)});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.score > b.score; });
  return out;
}

}  // namespace cann_debug::host
