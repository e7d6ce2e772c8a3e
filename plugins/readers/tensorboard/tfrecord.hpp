// TFRecord framing, the container of TensorBoard event files:
//   u64 length (little endian) | u32 masked CRC-32C of the 8 length bytes | data | u32 masked CRC-32C of data
// masked(crc) = ((crc >> 15) | (crc << 17)) + 0xa282ead8.
#pragma once

#include <cstdint>
#include <istream>
#include <string>
#include <string_view>

namespace cann_debug::plugins::tensorboard {

/// CRC-32C (Castagnoli), as TFRecord uses it.
std::uint32_t crc32c(std::string_view data);
std::uint32_t masked_crc32c(std::string_view data);

class TfRecordReader {
 public:
  enum class Status {
    kRecord,  // `data` holds the next record
    kEnd,     // the stream ended between records
    kTorn,    // the stream ended inside a record (a writer still writing, or a crash): `torn_bytes` left
  };

  TfRecordReader(std::istream& in, std::string path, std::uint64_t max_record_bytes);

  /// The next record. Throws ParseError naming the byte offset on a CRC mismatch or an oversized length.
  Status next(std::string& data);

  /// Byte offset of the record last returned (or of the torn one).
  std::uint64_t record_offset() const { return record_offset_; }
  std::uint64_t torn_bytes() const { return torn_bytes_; }
  std::int64_t records_read() const { return count_; }

 private:
  bool read_exact(char* out, std::size_t n, std::size_t& got);

  std::istream& in_;
  std::string path_;
  std::uint64_t max_;
  std::uint64_t offset_ = 0;
  std::uint64_t record_offset_ = 0;
  std::uint64_t torn_bytes_ = 0;
  std::int64_t count_ = 0;
};

}  // namespace cann_debug::plugins::tensorboard
