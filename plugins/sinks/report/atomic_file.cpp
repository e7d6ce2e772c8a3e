#include "atomic_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug::report {
namespace {

namespace fs = std::filesystem;

std::string errno_text(int err) {
  return err ? std::strerror(err) : "unknown error";
}

fs::path temp_path_for(const fs::path& target) {
  return fs::path(target.string() + fmt::format(".tmp.{}", static_cast<long>(::getpid())));
}

void write_all(const fs::path& path, const std::string& content) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f)
    throw std::runtime_error(
        fmt::format("{}: cannot open for writing: {}", path.string(), errno_text(errno)));
  const bool written = std::fwrite(content.data(), 1, content.size(), f) == content.size();
  const int write_errno = errno;
  const bool flushed = written && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed)
    throw std::runtime_error(
        fmt::format("{}: write failed: {}", path.string(), errno_text(!written ? write_errno : flush_errno)));
}

}  // namespace

void prepare_output_folder(const std::string& folder) {
  if (folder.empty()) throw std::runtime_error("report: option 'output' names no folder");
  std::error_code ec;
  fs::create_directories(folder, ec);
  if (ec)
    throw std::runtime_error(fmt::format("{}: cannot create the report folder: {}", folder, ec.message()));
  if (!fs::is_directory(folder, ec))
    throw std::runtime_error(fmt::format("{}: the report folder exists but is not a folder", folder));
  if (::access(folder.c_str(), W_OK | X_OK) != 0)
    throw std::runtime_error(
        fmt::format("{}: the report folder is not writable: {}", folder, errno_text(errno)));
}

void write_file_atomically(const std::string& folder, const std::string& name, const std::string& content) {
  const fs::path target = fs::path(folder) / name;
  const fs::path temp = temp_path_for(target);
  try {
    write_all(temp, content);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw;
  }
  std::error_code ec;
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw std::runtime_error(
        fmt::format("{}: cannot replace it with '{}': {}", target.string(), temp.string(), ec.message()));
  }
}

}  // namespace cann_debug::report
