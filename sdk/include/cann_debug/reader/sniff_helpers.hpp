// What sniff() functions look at: the first line(s) of a file's head, its CSV header, its file name.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::plugins::readers {

/// The first line of `head` (without CR), after a UTF-8 byte-order mark.
std::string_view first_line(std::string_view head);

/// Lines of `head` that are complete (the last, cut one is dropped), up to `max_lines`.
std::vector<std::string_view> head_lines(std::string_view head, std::size_t max_lines = 64);

/// The header cells of a CSV head (trimmed, quotes removed), or empty when the first line is not CSV-like
/// (fewer than two cells, or not text).
std::vector<std::string> csv_header(std::string_view head);

/// Whether `header` holds every one of `names` (compared by snake_case).
bool has_columns(const std::vector<std::string>& header, const std::vector<std::string>& names);

/// The file name of a path ("a/b/c.csv" -> "c.csv").
std::string base_name(std::string_view path);

/// Whether the head looks like text (no NUL or other control bytes in its first 4 KiB).
bool looks_text(std::string_view head);

}  // namespace cann_debug::plugins::readers
