// Small reads of /proc and /sys files under a configurable root: one value per file, or a directory's
// entries. Everything returns "absent" instead of throwing: a missing file on a machine is a reason.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
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

/// Names in a directory (no "." or ".."), sorted; empty when the directory cannot be read.
std::vector<std::string> list_directory(const std::string& path);
bool is_directory(const std::string& path);

}  // namespace cann_debug::plugins::sampler_support
