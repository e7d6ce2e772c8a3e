// A sliding window over a ByteSource: holds the bytes from the value being scanned to what was read last,
// plus simdjson's padding after them, so memory is bounded by the largest single value, not by the file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "cann_debug/reader/byte_source.hpp"

namespace cann_debug::plugins::chrome_trace {

// The SDK's byte sources (file or memory, plain or gzip).
using readers::ByteSource;
using readers::has_gzip_magic;
using readers::inflate_head;
using readers::memory_byte_source;
using readers::open_byte_source;

class ScanBuffer {
 public:
  /// Bytes that are always allocated (and zeroed) after the buffered data: simdjson may read that far.
  static constexpr std::size_t kPadding = 64;

  explicit ScanBuffer(ByteSource& source, std::size_t chunk_bytes = 256 << 10);

  const char* data() const { return buf_.data() + pos_; }
  std::size_t available() const { return end_ - pos_; }
  /// Bytes readable from data(): the buffered ones plus the padding after them.
  std::size_t readable() const { return buf_.size() - pos_; }
  /// Offset in the byte stream of data()[0].
  std::uint64_t offset() const { return base_ + pos_; }
  bool at_eof() const { return eof_; }

  void advance(std::size_t n) { pos_ += n; }
  /// Reads more bytes, keeping those from data() on (the buffer grows when it is full). Returns false when
  /// the stream has ended and nothing more could be read.
  bool more();
  /// Largest buffer this window has needed, for memory reports.
  std::size_t capacity() const { return buf_.capacity(); }

 private:
  ByteSource& source_;
  std::size_t chunk_;
  std::vector<char> buf_;
  std::size_t pos_ = 0;
  std::size_t end_ = 0;
  std::uint64_t base_ = 0;
  bool eof_ = false;
};

}  // namespace cann_debug::plugins::chrome_trace
