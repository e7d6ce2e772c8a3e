#include "cann_debug/reader/parse_error.hpp"

#include <fmt/format.h>

namespace cann_debug::plugins::readers {

std::string line_error(std::string_view path, std::int64_t line, std::uint64_t line_offset,
                       std::string_view what) {
  return fmt::format("{}:{}: {} (line starts at byte offset {})", path, line, what, line_offset);
}

std::string byte_error(std::string_view path, std::int64_t line, std::uint64_t byte_offset,
                       std::string_view what) {
  return fmt::format("{}:{}: {} (at byte offset {})", path, line, what, byte_offset);
}

std::string file_error(std::string_view path, std::string_view what) {
  return fmt::format("{}: {}", path, what);
}

void fail_line(std::string_view path, std::int64_t line, std::uint64_t line_offset, std::string_view what) {
  throw ParseError(line_error(path, line, line_offset, what));
}

void fail_byte(std::string_view path, std::int64_t line, std::uint64_t byte_offset, std::string_view what) {
  throw ParseError(byte_error(path, line, byte_offset, what));
}

void fail_file(std::string_view path, std::string_view what) {
  throw ParseError(file_error(path, what));
}

}  // namespace cann_debug::plugins::readers
