// Helpers shared by the plugin tests: fixture paths and a temporary directory removed at scope exit.
#pragma once

#include <unistd.h>
#include <atomic>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <string_view>

namespace cann_debug::plugins::test {

/// tests/data of the source tree. (CANN_DEBUG_TEST_DATA_DIR points at <caller's dir>/data, which for these
/// tests is tests/support/data, so the source dir is used instead.)
inline std::filesystem::path data_dir() {
  return std::filesystem::path(CANN_DEBUG_SOURCE_DIR) / "tests" / "data";
}

class TempDir {
 public:
  explicit TempDir(std::string_view tag = "cdp") {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            (std::string(tag) + "-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline void write_file(const std::filesystem::path& path, std::string_view content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace cann_debug::plugins::test
