// Splits a byte stream into lines without ever holding more than one capped line in memory.
//
// Tracks the 1-based number and the byte offset of each line so that errors can point at them. A line
// longer than the cap is reported as such (kTooLong) instead of being read, so a 10 MB line or binary
// garbage without newlines costs at most `max_line_bytes` plus one read chunk.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <istream>
#include <string>
#include <vector>

namespace cann_debug::plugins::jsonl_detail {

class LineReader {
 public:
  enum class Status { kLine, kEnd, kTooLong };

  LineReader(std::istream& in, std::size_t max_line_bytes, std::size_t chunk_bytes = 64 * 1024)
      : in_(in), max_(max_line_bytes), buf_(chunk_bytes) {}

  /// Reads the next line into `line`, without its '\n' and without a trailing '\r'. After kTooLong the
  /// reader is positioned inside that line; callers stop there.
  Status next(std::string& line) {
    line.clear();
    if (pos_ == len_ && !fill()) return Status::kEnd;
    ++line_;
    offset_ = consumed_ + pos_;
    for (;;) {
      if (pos_ == len_ && !fill()) break;  // the last line has no '\n'
      const char* begin = buf_.data() + pos_;
      const auto* nl = static_cast<const char*>(std::memchr(begin, '\n', len_ - pos_));
      const std::size_t n = nl ? static_cast<std::size_t>(nl - begin) : len_ - pos_;
      if (line.size() + n > max_) return Status::kTooLong;
      line.append(begin, n);
      pos_ += n;
      if (nl) {
        ++pos_;
        break;
      }
    }
    if (!line.empty() && line.back() == '\r') line.pop_back();
    return Status::kLine;
  }

  /// 1-based number of the line last returned by next().
  std::int64_t line_number() const { return line_; }
  /// Byte offset of the first byte of that line.
  std::uint64_t line_offset() const { return offset_; }
  /// True when the stream failed for another reason than its end (an I/O error).
  bool read_error() const { return in_.bad(); }

 private:
  bool fill() {
    consumed_ += len_;
    pos_ = len_ = 0;
    if (!in_.good()) return false;
    in_.read(buf_.data(), static_cast<std::streamsize>(buf_.size()));
    len_ = static_cast<std::size_t>(in_.gcount());
    return len_ > 0;
  }

  std::istream& in_;
  std::size_t max_;
  std::vector<char> buf_;
  std::size_t pos_ = 0;
  std::size_t len_ = 0;
  std::uint64_t consumed_ = 0;  // bytes of the stream before buf_[0]
  std::int64_t line_ = 0;
  std::uint64_t offset_ = 0;
};

}  // namespace cann_debug::plugins::jsonl_detail
