// TFRecord framing with masked CRC-32C checks (see tfrecord.hpp).
#include "tfrecord.hpp"

#include <array>

#include <fmt/format.h>

#include "cann_debug/reader/parse_error.hpp"

namespace cann_debug::plugins::tensorboard {
namespace {

constexpr std::array<std::uint32_t, 256> make_table() {
  std::array<std::uint32_t, 256> t{};
  for (std::uint32_t i = 0; i < 256; ++i) {
    std::uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? (c >> 1) ^ 0x82F63B78u : c >> 1;
    t[i] = c;
  }
  return t;
}
constexpr auto kTable = make_table();

std::uint64_t le64(const char* p) {
  std::uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}
std::uint32_t le32(const char* p) {
  std::uint32_t v = 0;
  for (int i = 3; i >= 0; --i) v = (v << 8) | static_cast<unsigned char>(p[i]);
  return v;
}

}  // namespace

std::uint32_t crc32c(std::string_view data) {
  std::uint32_t c = 0xFFFFFFFFu;
  for (unsigned char b : data) c = kTable[(c ^ b) & 0xFF] ^ (c >> 8);
  return c ^ 0xFFFFFFFFu;
}

std::uint32_t masked_crc32c(std::string_view data) {
  const std::uint32_t c = crc32c(data);
  return ((c >> 15) | (c << 17)) + 0xa282ead8u;
}

TfRecordReader::TfRecordReader(std::istream& in, std::string path, std::uint64_t max_record_bytes)
    : in_(in), path_(std::move(path)), max_(max_record_bytes) {}

bool TfRecordReader::read_exact(char* out, std::size_t n, std::size_t& got) {
  in_.read(out, static_cast<std::streamsize>(n));
  got = static_cast<std::size_t>(in_.gcount());
  offset_ += got;
  return got == n;
}

TfRecordReader::Status TfRecordReader::next(std::string& data) {
  record_offset_ = offset_;
  char header[12];
  std::size_t got = 0;
  if (!read_exact(header, sizeof header, got)) {
    if (got == 0) return Status::kEnd;
    torn_bytes_ = got;
    return Status::kTorn;
  }
  const std::string_view len_bytes(header, 8);
  if (masked_crc32c(len_bytes) != le32(header + 8))
    readers::fail_file(path_,
                       fmt::format("expected a TFRecord length with its masked CRC-32C at byte offset {} "
                                   "(record {}), got a mismatch (not an event file, or corrupt)",
                                   record_offset_, count_ + 1));
  const std::uint64_t len = le64(header);
  if (len > max_)
    readers::fail_file(path_, fmt::format("expected a record of at most max_record_bytes = {} bytes at byte "
                                          "offset {}, got {} bytes",
                                          max_, record_offset_, len));
  data.resize(static_cast<std::size_t>(len));
  char crc[4];
  std::size_t got_data = 0, got_crc = 0;
  if (!read_exact(data.data(), data.size(), got_data) || !read_exact(crc, 4, got_crc)) {
    torn_bytes_ = 12 + got_data + got_crc;
    return Status::kTorn;
  }
  if (masked_crc32c(data) != le32(crc))
    readers::fail_file(path_,
                       fmt::format("expected record {} (at byte offset {}, {} bytes) to match its masked "
                                   "CRC-32C, got a mismatch (corrupt data)",
                                   count_ + 1, record_offset_, len));
  ++count_;
  return Status::kRecord;
}

}  // namespace cann_debug::plugins::tensorboard
