#include "cann_debug/sampler/sysfs_files.hpp"

#include <fcntl.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <system_error>

namespace cann_debug::plugins::sampler_support {

std::string join_path(std::string_view root, std::string_view rel) {
  while (!rel.empty() && rel.front() == '/') rel.remove_prefix(1);
  std::string out;
  out.reserve(root.size() + rel.size() + 2);
  if (root.empty())
    out.push_back('.');
  else
    out.append(root);
  if (out.back() != '/') out.push_back('/');
  out.append(rel);
  return out;
}

std::optional<std::string> read_text_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  std::string text(4096, '\0');
  std::size_t size = 0;
  for (;;) {
    const ssize_t n = ::read(fd, text.data() + size, text.size() - size);
    if (n < 0) {
      ::close(fd);
      return std::nullopt;
    }
    if (n == 0) break;
    size += static_cast<std::size_t>(n);
    if (size == text.size()) text.resize(text.size() * 2);
  }
  ::close(fd);
  text.resize(size);
  return text;
}

std::optional<std::string> read_first_line(const std::string& path) {
  // open, read, close into a stack buffer: these files are a line or a few, read many times a second.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n < 0) return std::nullopt;
  std::string_view line(buf, static_cast<std::size_t>(n));
  if (const auto nl = line.find('\n'); nl != std::string_view::npos) line = line.substr(0, nl);
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return std::string();
  const auto last = line.find_last_not_of(" \t\r");
  return std::string(line.substr(first, last - first + 1));
}

std::optional<std::uint64_t> read_u64_file(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[128];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n <= 0) return std::nullopt;
  return parse_u64_line(std::string_view(buf, static_cast<std::size_t>(n)));
}

std::optional<std::uint64_t> parse_u64_line(std::string_view text) {
  if (const auto nl = text.find('\n'); nl != std::string_view::npos) text = text.substr(0, nl);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t' || text.back() == '\r'))
    text.remove_suffix(1);
  if (text.empty()) return std::nullopt;
  int base = 10;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    text.remove_prefix(2);
    base = 16;
  }
  std::uint64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value, base);
  if (ec != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool KeptOpenFile::open() {
  fd_ = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) return false;
  if (may_be_replaced_) {
    struct statfs fs {};
    check_unlinked_ = ::fstatfs(fd_, &fs) != 0 || fs.f_type != PROC_SUPER_MAGIC;
  }
  return true;
}

std::optional<std::string_view> KeptOpenFile::read() {
  for (int attempt = 0; attempt < 2; ++attempt) {
    if (fd_ >= 0 && check_unlinked_) {
      struct stat st {};
      if (::fstat(fd_, &st) != 0 || st.st_nlink == 0) close();  // removed or replaced since the last read
    }
    if (fd_ < 0 && !open()) return std::nullopt;
    if (const auto size = read_whole()) return std::string_view(buffer_.data(), *size);
    close();  // a stale descriptor (the file was replaced): open the path again once
  }
  return std::nullopt;
}

std::optional<std::size_t> KeptOpenFile::read_whole() {
  if (buffer_.empty()) buffer_.resize(128);  // one counter's line; a table (/proc/stat) grows it at once
  std::size_t size = 0;
  for (;;) {
    const ssize_t n = ::pread(fd_, buffer_.data() + size, buffer_.size() - size, static_cast<off_t>(size));
    if (n < 0) return std::nullopt;
    size += static_cast<std::size_t>(n);
    // A short read is the end: procfs and sysfs fill the buffer up to the end of the text, as regular
    // files do (a read until 0 would cost a second system call every time).
    if (size < buffer_.size()) return size;
    buffer_.resize(buffer_.size() * 2);  // keeps what was read
  }
}

void KeptOpenFile::close() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

std::vector<std::string> list_directory(const std::string& path) {
  std::vector<std::string> names;
  std::error_code ec;
  for (std::filesystem::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

bool is_directory(const std::string& path) {
  struct stat st {};  // stat(2) itself: samplers ask this every sample, std::filesystem would copy the path
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace cann_debug::plugins::sampler_support
