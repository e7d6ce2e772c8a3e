// Little-endian fixed-width and LEB128 varint encoding for the recording format, appending to a string
// and reading from a bounded view (a read past the end throws, naming the offset).
#pragma once

#include <bit>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <string_view>

namespace cann_debug::plugins::recording {

/// Encoders into a buffer the caller has sized (the hot path of the writer: one resize per record instead
/// of a capacity check per byte). Each returns the position after what it wrote.
inline constexpr std::size_t kMaxVarintBytes = 10;
inline char* put_varint(char* p, std::uint64_t v) {
  while (v >= 0x80) {
    *p++ = static_cast<char>((v & 0x7f) | 0x80);
    v >>= 7;
  }
  *p++ = static_cast<char>(v);
  return p;
}
inline char* put_fixed(char* p, std::uint64_t v, int n) {
  for (int i = 0; i < n; ++i) *p++ = static_cast<char>((v >> (8 * i)) & 0xff);
  return p;
}
inline char* put_f64(char* p, double v) {
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(p, &v, 8);  // one store: the format is little-endian IEEE 754
    return p + 8;
  } else {
    std::uint64_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    return put_fixed(p, bits, 8);
  }
}
/// A double as the XOR of its bits with `previous` (the same series' last value in the chunk): a control
/// byte (low nibble: leading zero bytes of the XOR, 0-8; high nibble: trailing zero bytes) and the bytes in
/// between, least significant first. An unchanged value is the one byte 0x08; a value that moved in its
/// low mantissa bits keeps its sign, exponent and high mantissa bytes out. At most 9 bytes.
inline constexpr std::size_t kMaxXorDoubleBytes = 9;
inline char* put_xor_f64(char* p, std::uint64_t bits, std::uint64_t previous) {
  const std::uint64_t x = bits ^ previous;
  if (x == 0) {
    *p++ = 0x08;
    return p;
  }
  const int lead = std::countl_zero(x) / 8, trail = std::countr_zero(x) / 8;
  *p++ = static_cast<char>(lead | (trail << 4));
  return put_fixed(p, x >> (8 * trail), 8 - lead - trail);
}

/// Zig-zag: small magnitudes of either sign become small unsigned numbers.
inline std::uint64_t zigzag(std::int64_t v) {
  return (static_cast<std::uint64_t>(v) << 1) ^ static_cast<std::uint64_t>(v >> 63);
}

class ByteWriter {
 public:
  explicit ByteWriter(std::string& out) : out_(out) {}
  void u8(std::uint8_t v) { out_.push_back(static_cast<char>(v)); }
  void u32(std::uint32_t v) { fixed(v, 4); }
  void u64(std::uint64_t v) { fixed(v, 8); }
  void i64(std::int64_t v) { fixed(static_cast<std::uint64_t>(v), 8); }
  void f64(double v) {
    char buf[8];
    out_.append(buf, put_f64(buf, v));
  }
  void varint(std::uint64_t v) {
    char buf[kMaxVarintBytes];
    out_.append(buf, put_varint(buf, v));
  }
  /// Zig-zag signed varint: small magnitudes of either sign take few bytes.
  void svarint(std::int64_t v) { varint(zigzag(v)); }
  void str(std::string_view s) {
    varint(s.size());
    out_.append(s);
  }
  void bytes(std::string_view s) { out_.append(s); }

 private:
  void fixed(std::uint64_t v, int n) {
    char buf[8];
    out_.append(buf, put_fixed(buf, v, n));
  }
  std::string& out_;
};

/// Thrown when a record runs past the end of its buffer or holds an impossible value.
struct DecodeError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class ByteReader {
 public:
  explicit ByteReader(std::string_view in) : in_(in) {}
  bool done() const { return pos_ >= in_.size(); }
  std::size_t offset() const { return pos_; }
  std::uint8_t u8() { return static_cast<std::uint8_t>(take(1)[0]); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(fixed(4)); }
  std::uint64_t u64() { return fixed(8); }
  std::int64_t i64() { return static_cast<std::int64_t>(fixed(8)); }
  double f64() {
    const std::uint64_t bits = fixed(8);
    double v = 0;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      const auto byte = u8();
      v |= static_cast<std::uint64_t>(byte & 0x7f) << shift;
      if (!(byte & 0x80)) return v;
    }
    throw DecodeError("varint longer than 10 bytes at offset " + std::to_string(pos_));
  }
  std::int64_t svarint() {
    const std::uint64_t z = varint();
    return static_cast<std::int64_t>((z >> 1) ^ (~(z & 1) + 1));
  }
  std::string_view str() { return take(static_cast<std::size_t>(varint())); }
  /// The bits of a double written by put_xor_f64 against `previous`.
  std::uint64_t xor_f64_bits(std::uint64_t previous) {
    const auto control = u8();
    const int lead = control & 0x0f, trail = control >> 4;
    if (lead > 8 || (lead == 8) != (control == 0x08) || (lead < 8 && lead + trail >= 8))
      throw DecodeError("bad packed double control byte " + std::to_string(control) + " at offset " +
                        std::to_string(pos_ - 1));
    if (lead == 8) return previous;
    return previous ^ (fixed(8 - lead - trail) << (8 * trail));
  }
  std::string_view take(std::size_t n) {
    if (n > in_.size() - pos_)
      throw DecodeError("record runs past the end of its block at offset " + std::to_string(pos_) +
                        " (needs " + std::to_string(n) + " bytes, " + std::to_string(in_.size() - pos_) +
                        " left)");
    auto s = in_.substr(pos_, n);
    pos_ += n;
    return s;
  }

 private:
  std::uint64_t fixed(int n) {
    if (n == 0) return 0;
    auto s = take(static_cast<std::size_t>(n));
    std::uint64_t v = 0;
    for (int i = 0; i < n; ++i) v |= static_cast<std::uint64_t>(static_cast<unsigned char>(s[i])) << (8 * i);
    return v;
  }
  std::string_view in_;
  std::size_t pos_ = 0;
};

}  // namespace cann_debug::plugins::recording
