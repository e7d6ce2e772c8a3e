#include "cann_debug/whole_file.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug {
namespace {

namespace fs = std::filesystem;

std::string errno_text(int err) {
  return err ? std::strerror(err) : "unknown error";
}

/// Writes, flushes and syncs `bytes` into a new file at `path`.
void write_all(const fs::path& path, std::string_view bytes) {
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f)
    throw std::runtime_error(
        fmt::format("{}: cannot open for writing: {}", path.string(), errno_text(errno)));
  const bool written = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  const int write_errno = errno;
  const bool flushed = written && std::fflush(f) == 0 && ::fsync(::fileno(f)) == 0;
  const int flush_errno = errno;
  const bool closed = std::fclose(f) == 0;
  if (!written || !flushed || !closed)
    throw std::runtime_error(
        fmt::format("{}: write failed: {}", path.string(), errno_text(!written ? write_errno : flush_errno)));
}

}  // namespace

std::string read_whole_file(const std::string& path) {
  std::error_code ec;
  if (fs::is_directory(path, ec))
    throw std::runtime_error(fmt::format("{}: cannot read: it is a folder", path));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read: {}", path, errno_text(errno)));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error(fmt::format("{}: cannot read: read error", path));
  return text.str();
}

void write_file_atomically(const std::string& path, std::string_view bytes) {
  const fs::path target(path);
  const fs::path temp(fmt::format("{}.tmp.{}", path, static_cast<long>(::getpid())));
  try {
    write_all(temp, bytes);
  } catch (...) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw;
  }
  std::error_code ec;
  // An existing file keeps its permissions.
  if (fs::exists(target, ec)) fs::permissions(temp, fs::status(target, ec).permissions(), ec);
  fs::rename(temp, target, ec);
  if (ec) {
    std::error_code ignored;
    fs::remove(temp, ignored);
    throw std::runtime_error(
        fmt::format("{}: cannot replace it with '{}': {}", target.string(), temp.string(), ec.message()));
  }
}

}  // namespace cann_debug
