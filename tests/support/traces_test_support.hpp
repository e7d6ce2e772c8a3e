// Helpers of the trace tests: fixture paths, temporary files, running the reader to its end.
#pragma once

#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"

namespace cann_debug::traces_test {

inline std::filesystem::path data_dir() {
  return std::filesystem::path(CANN_DEBUG_SOURCE_DIR) / "tests" / "data" / "traces";
}

/// ../shared next to the checkout, or an empty path when it is absent (tests then skip).
inline std::filesystem::path shared_dir() {
  std::error_code ec;
  const std::filesystem::path p(CANN_DEBUG_SHARED_DIR);
  return std::filesystem::is_directory(p, ec) ? p : std::filesystem::path();
}

class TempDir {
 public:
  TempDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("cdtraces-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

inline std::string write_file(const std::filesystem::path& path, std::string_view content) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(content.data(), static_cast<std::streamsize>(content.size()));
  return path.string();
}

inline std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

/// Runs a source component to its end; returns the error it threw ("" if none).
inline std::string run(testing::Harness& h) {
  try {
    h.run_source();
  } catch (const std::exception& e) {
    return e.what();
  }
  return {};
}

inline std::vector<Event> all_events(const testing::Harness& h) {
  std::vector<Event> out;
  for (const auto& b : h.outputs_of<EventBatch>(0)) out.insert(out.end(), b.events.begin(), b.events.end());
  return out;
}

}  // namespace cann_debug::traces_test
