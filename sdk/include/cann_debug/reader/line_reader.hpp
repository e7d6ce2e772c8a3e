// Splits a byte stream into lines without ever holding more than one capped line in memory.
//
// Tracks the 1-based number and the byte offset of each line so that errors can point at them. A line
// longer than the cap is reported (kTooLong) instead of being read, so a 10 MB line or binary garbage
// without newlines costs at most `max_line_bytes` plus one read chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <istream>
#include <string>
#include <vector>

namespace cann_debug::plugins::readers {

class LineReader {
 public:
  enum class Status { kLine, kEnd, kTooLong };

  LineReader(std::istream& in, std::size_t max_line_bytes, std::size_t chunk_bytes = 64 * 1024);

  /// Reads the next line into `line`, without its '\n' and without a trailing '\r'. After kTooLong the
  /// reader is positioned inside that line; callers stop there.
  Status next(std::string& line);

  /// 1-based number of the line last returned by next().
  std::int64_t line_number() const { return line_; }
  /// Byte offset of the first byte of that line.
  std::uint64_t line_offset() const { return offset_; }
  /// True when the stream failed for another reason than its end (an I/O error).
  bool read_error() const { return in_.bad(); }
  std::size_t max_line_bytes() const { return max_; }

 private:
  bool fill();

  std::istream& in_;
  std::size_t max_;
  std::vector<char> buf_;
  std::size_t pos_ = 0;
  std::size_t len_ = 0;
  std::uint64_t consumed_ = 0;  // bytes of the stream before buf_[0]
  std::int64_t line_ = 0;
  std::uint64_t offset_ = 0;
};

}  // namespace cann_debug::plugins::readers
