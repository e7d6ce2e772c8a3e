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

/// A file read again and again from offset 0 (/proc/stat, /proc/meminfo, ...): kept open between reads
/// (procfs and sysfs make the text anew on every read from the start), reopened after a failed read.
class KeptOpenFile {
 public:
  /// `may_be_replaced`: the path may be removed or replaced between reads (/proc/<pid>/stat: the process
  /// exits, its pid is reused). procfs says so itself (a read of a dead process's file fails); on any
  /// other file system (a fixture tree, a copy of /proc) each read first checks with fstat whether the
  /// open file was unlinked, and opens the path again if so.
  explicit KeptOpenFile(std::string path, bool may_be_replaced = false)
      : path_(std::move(path)), may_be_replaced_(may_be_replaced) {}
  KeptOpenFile(KeptOpenFile&& other) noexcept
      : path_(std::move(other.path_)),
        fd_(std::exchange(other.fd_, -1)),
        may_be_replaced_(other.may_be_replaced_),
        check_unlinked_(other.check_unlinked_),
        buffer_(std::move(other.buffer_)) {}
  KeptOpenFile& operator=(KeptOpenFile&&) = delete;
  KeptOpenFile(const KeptOpenFile&) = delete;
  KeptOpenFile& operator=(const KeptOpenFile&) = delete;
  ~KeptOpenFile() { close(); }

  /// The whole text now, valid until the next read(); nullopt (errno set) when the file cannot be read.
  std::optional<std::string_view> read();
  const std::string& path() const { return path_; }
  void close();

 private:
  bool open();
  /// Reads from offset 0 into the buffer, growing it until the text fits; nullopt when a read fails.
  std::optional<std::size_t> read_whole();
  std::string path_;
  int fd_ = -1;
  bool may_be_replaced_ = false;
  bool check_unlinked_ = false;  // may_be_replaced_ and not on procfs
  // Only grows, never shrinks to the text: resized up only when a text fills it, so it is not cleared
  // before every read. The text read last is its first read() bytes.
  std::string buffer_;
};

/// A /sys or /proc attribute holding one number ("123\n", or 0x hex), kept open: one pread per reading
/// instead of open, read and close.
class AttributeFile {
 public:
  explicit AttributeFile(std::string path) : file_(std::move(path)) {}

  /// The file's number now; nullopt when it cannot be read (some hw counters need privileges) or is not
  /// one number.
  std::optional<std::uint64_t> read_u64() {
    const auto text = file_.read();
    return text ? parse_u64_line(*text) : std::nullopt;
  }
  const std::string& path() const { return file_.path(); }
  void close() { file_.close(); }

 private:
  KeptOpenFile file_;
};

/// How often samplers list /sys and /proc directories again (network interfaces, RDMA ports, resctrl
/// domains: they come and go rarely); between listings the files found stay open.
inline constexpr std::int64_t kRelistIntervalNs = 5'000'000'000;

/// Names in a directory (no "." or ".."), sorted; empty when the directory cannot be read.
std::vector<std::string> list_directory(const std::string& path);
bool is_directory(const std::string& path);

}  // namespace cann_debug::plugins::sampler_support
