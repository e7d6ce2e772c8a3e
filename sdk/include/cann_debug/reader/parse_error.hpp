// The one error type of the file readers, and the three shapes of its message.
//
//   <path>:<line>: <what was expected> (line starts at byte offset N)   a line (or CSV row) is bad
//   <path>:<line>: <what was expected> (at byte offset N)              a byte inside a document is bad
//   <path>: <what was expected>                                        the file as a whole is bad
//
// The first shape is the jsonl reader's, so every reader's errors read the same.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cann_debug::plugins::readers {

class ParseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string line_error(std::string_view path, std::int64_t line, std::uint64_t line_offset,
                       std::string_view what);
std::string byte_error(std::string_view path, std::int64_t line, std::uint64_t byte_offset,
                       std::string_view what);
std::string file_error(std::string_view path, std::string_view what);

[[noreturn]] void fail_line(std::string_view path, std::int64_t line, std::uint64_t line_offset,
                            std::string_view what);
[[noreturn]] void fail_byte(std::string_view path, std::int64_t line, std::uint64_t byte_offset,
                            std::string_view what);
[[noreturn]] void fail_file(std::string_view path, std::string_view what);

}  // namespace cann_debug::plugins::readers
