#include "sysfs_files.hpp"

#include <fcntl.h>
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
  std::string out(root);
  if (out.empty()) out = ".";
  if (out.back() != '/') out += '/';
  out += rel;
  return out;
}

std::optional<std::string> read_text_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in.is_open()) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) return std::nullopt;
  return text.str();
}

std::optional<std::string> read_first_line(const std::string& path) {
  // open, read, close into a stack buffer: these files are a line or a few, read many times a second.
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return std::nullopt;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  ::close(fd);
  if (n < 0) return std::nullopt;
  std::string_view text(buf, static_cast<std::size_t>(n));
  if (const auto nl = text.find('\n'); nl != std::string_view::npos) text = text.substr(0, nl);
  const std::string line(text);
  const auto first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos) return std::string();
  const auto last = line.find_last_not_of(" \t\r");
  return line.substr(first, last - first + 1);
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

AttributeFile::AttributeFile(const std::string& path) : fd_(::open(path.c_str(), O_RDONLY | O_CLOEXEC)) {}

AttributeFile& AttributeFile::operator=(AttributeFile&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

AttributeFile::~AttributeFile() {
  if (fd_ >= 0) ::close(fd_);
}

std::optional<std::uint64_t> AttributeFile::read_u64() const {
  if (fd_ < 0) return std::nullopt;
  char buf[64];
  const ssize_t n = ::pread(fd_, buf, sizeof buf, 0);
  if (n <= 0) return std::nullopt;
  return parse_u64_line(std::string_view(buf, static_cast<std::size_t>(n)));
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
  std::error_code ec;
  return std::filesystem::is_directory(path, ec);
}

}  // namespace cann_debug::plugins::sampler_support
