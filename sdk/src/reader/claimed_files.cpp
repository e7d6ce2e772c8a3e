// Files of a folder claimed by a reader's sniff() (see claimed_files.hpp).
#include "cann_debug/reader/claimed_files.hpp"

#include <algorithm>
#include <filesystem>

#include "cann_debug/reader/reader_component.hpp"

namespace cann_debug::plugins::readers {

std::vector<std::string> claimed_files(const std::string& path,
                                       const std::function<int(const SniffInput&)>& sniff) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    if (!entry.is_regular_file(ec)) continue;
    const std::string name = entry.path().string();
    if (sniff(SniffInput{name, file_head(name), false}) >= kClaimScore) files.push_back(name);
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace cann_debug::plugins::readers
