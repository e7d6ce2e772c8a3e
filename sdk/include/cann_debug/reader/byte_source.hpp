// Byte sources for readers: a plain file or a gzip stream (chosen by the magic bytes, not the name), over
// a file or over bytes in memory (tests, fuzz targets, data that arrived some other way), read in chunks so
// memory does not grow with the file. Offsets are in the (decompressed) byte stream a reader parses.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

namespace cann_debug::plugins::readers {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  /// Reads up to `n` bytes into `dst`; returns 0 at the end of the stream. Throws std::runtime_error on an
  /// I/O error or corrupt compressed data, naming the file.
  virtual std::size_t read(char* dst, std::size_t n) = 0;
  /// True when the bytes are decompressed from gzip (offsets then refer to the decompressed data).
  virtual bool compressed() const = 0;
};

/// True when `head` starts with the gzip magic bytes 1f 8b.
bool has_gzip_magic(std::string_view head);

/// Opens `path`, choosing gzip decompression from the file's magic bytes (not its name). Throws
/// std::runtime_error("<path>: cannot open: <reason>") when the file cannot be read.
std::unique_ptr<ByteSource> open_byte_source(const std::string& path);

/// The same over `bytes` held in memory; `name` stands for the file in error messages.
std::unique_ptr<ByteSource> memory_byte_source(std::string bytes, const std::string& name = "<memory>");

/// Decompresses as much of a gzip stream's first bytes as possible (for sniffing a file's head). Never
/// throws; returns what could be decompressed, at most `max_out` bytes.
std::string inflate_head(std::string_view gz, std::size_t max_out);

}  // namespace cann_debug::plugins::readers
