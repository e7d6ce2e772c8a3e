// A fresh temporary directory, removed with everything in it at scope exit; plus small file helpers.
#pragma once

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::itest {

class TempDir {
 public:
  explicit TempDir(std::string_view tag = "cdt");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(std::string_view name) const { return (path_ / name).string(); }

 private:
  std::filesystem::path path_;
};

std::string read_text(const std::filesystem::path& path);
std::vector<std::string> read_lines(const std::filesystem::path& path);
void write_text(const std::filesystem::path& path, std::string_view text);

}  // namespace cann_debug::itest
