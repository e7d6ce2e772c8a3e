// Small reads of /proc and /sys files under a configurable root: one value per file, or a directory's
// entries. Everything returns "absent" instead of throwing: a missing file on a machine is a reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace cann_debug::plugins::sampler_support {

/// root + "/" + rel without doubling slashes ("/" + "proc/stat" -> "/proc/stat").
std::string join_path(std::string_view root, std::string_view rel);

/// The whole file, or nullopt when it cannot be opened.
std::optional<std::string> read_text_file(const std::string& path);
/// The first line without its newline and surrounding blanks.
std::optional<std::string> read_first_line(const std::string& path);
/// An unsigned decimal (or 0x hex) number that is the file's whole first line ("123\n").
std::optional<std::uint64_t> read_u64_file(const std::string& path);

/// The number a one-value file holds: its first line, blanks trimmed, decimal or 0x hex; nullopt otherwise.
std::optional<std::uint64_t> parse_u64_line(std::string_view text);

/// A /sys or /proc attribute kept open and read again from offset 0 with pread (sysfs makes the value
/// anew on every read from the start): one system call per reading instead of open, read and close.
class AttributeFile {
 public:
  AttributeFile() = default;
  explicit AttributeFile(const std::string& path);
  AttributeFile(AttributeFile&& other) noexcept : fd_(std::exchange(other.fd_, -1)) {}
  AttributeFile& operator=(AttributeFile&& other) noexcept;
  AttributeFile(const AttributeFile&) = delete;
  AttributeFile& operator=(const AttributeFile&) = delete;
  ~AttributeFile();

  bool is_open() const { return fd_ >= 0; }
  /// The file's number now; nullopt when it cannot be read (some hw counters need privileges) or is not
  /// one number.
  std::optional<std::uint64_t> read_u64() const;

 private:
  int fd_ = -1;
};

/// Names in a directory (no "." or ".."), sorted; empty when the directory cannot be read.
std::vector<std::string> list_directory(const std::string& path);
bool is_directory(const std::string& path);

}  // namespace cann_debug::plugins::sampler_support
