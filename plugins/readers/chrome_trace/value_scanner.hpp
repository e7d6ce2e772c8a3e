// Finds where one JSON value ends without parsing it: strings (with escapes), bracket nesting and matching,
// and a nesting limit. Resumable, so a value may arrive in several reads. It does not validate numbers or
// literals; simdjson does that when the value is parsed.
//
// Objects and arrays are scanned 64 bytes at a time with bit masks (SSE2 where available: quotes, brackets
// and backslashes become bits, a prefix-xor of the quote bits marks what is inside strings, and only the
// brackets outside strings are walked one by one). Blocks that contain a backslash, and everything else, take
// the byte-by-byte path.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace cann_debug::plugins::chrome_trace {

class ValueScanner {
 public:
  enum class Status { kComplete, kNeedMore, kError };

  explicit ValueScanner(int max_depth) : max_depth_(max_depth) {}

  /// Starts a new value whose first byte is the next one given to scan().
  void reset();
  /// Scans the value that starts at `p`, of which `n` bytes are available (the same `p` content on every
  /// call; `n` grows). On kComplete, `*length` is the value's size in bytes. When `padded`, 64 bytes after
  /// p[n - 1] may be read (their content does not matter), which enables the block path.
  Status scan(const char* p, std::size_t n, std::size_t* length, bool padded = false);
  /// At the end of the stream: a scalar (number, literal) ends there; anything else is truncated.
  bool complete_at_eof(std::size_t n, std::size_t* length) const;

  /// On kError: what was expected, and at which byte of the value.
  const std::string& error() const { return error_; }
  std::size_t error_position() const { return error_pos_; }
  /// What the value is, for messages: "an object", "an array", "a string", "a scalar".
  const char* kind() const;
  int max_depth() const { return max_depth_; }

 private:
  Status fail(std::size_t pos, std::string message);
  // One 64-byte block at pos_ (fewer valid bytes at the end); false when it must be scanned byte by byte.
  bool scan_block(const char* p, std::size_t n, std::size_t* length, Status* status);
  Status on_bracket(const char* p, std::size_t i, std::size_t* length, bool* done);

  int max_depth_;
  std::size_t pos_ = 0;
  std::size_t string_start_ = 0;
  bool in_string_ = false;
  char first_ = 0;
  std::string stack_;  // open brackets
  std::string error_;
  std::size_t error_pos_ = 0;
};

}  // namespace cann_debug::plugins::chrome_trace
