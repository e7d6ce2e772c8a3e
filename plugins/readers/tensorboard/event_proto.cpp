// Protobuf wire decoding of TensorBoard Event / Summary / Value / TensorProto (see event_proto.hpp).
#include "event_proto.hpp"

#include <bit>
#include <cmath>
#include <cstring>

#include <fmt/format.h>

namespace cann_debug::plugins::tensorboard {
namespace {

enum WireType : std::uint32_t { kVarint = 0, kFixed64 = 1, kLen = 2, kFixed32 = 5 };

// DataType values of types.proto that a scalar may have.
enum DType : std::uint64_t {
  kFloat = 1,
  kDouble = 2,
  kInt32 = 3,
  kInt64 = 9,
  kBfloat16 = 14,
  kHalf = 19,
};

struct DecodeError {
  std::size_t at;
  std::string what;
};

// A reader over one message's bytes; `base` is the offset of these bytes in the record, for messages.
class Wire {
 public:
  Wire(std::string_view b, std::size_t base) : b_(b), base_(base) {}
  bool done() const { return p_ >= b_.size(); }

  std::uint64_t varint() {
    std::uint64_t v = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (p_ >= b_.size()) fail("a complete varint, got the end of the message");
      const auto byte = static_cast<unsigned char>(b_[p_++]);
      v |= static_cast<std::uint64_t>(byte & 0x7F) << shift;
      if (!(byte & 0x80)) return v;
    }
    fail("a varint of at most 10 bytes");
  }
  std::uint64_t fixed(std::size_t n) {
    if (b_.size() - p_ < n)
      fail(fmt::format("{} more bytes of a fixed-width field, got {}", n, b_.size() - p_));
    std::uint64_t v = 0;
    for (std::size_t i = n; i-- > 0;) v = (v << 8) | static_cast<unsigned char>(b_[p_ + i]);
    p_ += n;
    return v;
  }
  std::string_view bytes() {
    const std::uint64_t n = varint();
    if (n > b_.size() - p_)
      fail(fmt::format("a field of {} bytes, got {} left in the message", n, b_.size() - p_));
    const std::string_view out = b_.substr(p_, static_cast<std::size_t>(n));
    p_ += static_cast<std::size_t>(n);
    return out;
  }
  // Next tag: field number and wire type.
  std::pair<std::uint32_t, std::uint32_t> tag() {
    const std::uint64_t t = varint();
    const auto field = static_cast<std::uint32_t>(t >> 3);
    const auto type = static_cast<std::uint32_t>(t & 7);
    if (field == 0) fail("a field number > 0");
    return {field, type};
  }
  void skip(std::uint32_t type) {
    switch (type) {
      case kVarint:
        varint();
        return;
      case kFixed64:
        fixed(8);
        return;
      case kLen:
        bytes();
        return;
      case kFixed32:
        fixed(4);
        return;
      default:
        fail(fmt::format("a known wire type (0, 1, 2 or 5), got {}", type));
    }
  }
  // Offset in the record of the byte about to be read, and of a sub-message's bytes.
  std::size_t offset() const { return base_ + p_; }
  std::size_t offset_of(std::string_view sub) const {
    return base_ + static_cast<std::size_t>(sub.data() - b_.data());
  }
  [[noreturn]] void fail(std::string what) const { throw DecodeError{base_ + p_, std::move(what)}; }

 private:
  std::string_view b_;
  std::size_t base_;
  std::size_t p_ = 0;
};

void expect_type(const Wire& w, std::uint32_t got, std::uint32_t want, std::string_view field) {
  if (got != want) w.fail(fmt::format("wire type {} for {}, got {}", want, field, got));
}

double half_to_double(std::uint32_t bits) {
  const std::uint32_t sign = (bits >> 15) & 1, exp = (bits >> 10) & 0x1F, frac = bits & 0x3FF;
  double v;
  if (exp == 0)
    v = std::ldexp(frac, -24);
  else if (exp == 31)
    v = frac ? NAN : INFINITY;
  else
    v = std::ldexp(frac + 1024.0, static_cast<int>(exp) - 25);
  return sign ? -v : v;
}

double bf16_to_double(std::uint32_t bits) {
  return static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(bits << 16)));
}

// The value of a rank-0 (or one-element) numeric tensor, if it is one.
std::optional<double> tensor_scalar(std::string_view bytes, std::size_t base) {
  Wire w(bytes, base);
  std::uint64_t dtype = 0;
  std::size_t dims = 0;
  std::optional<double> value;
  std::string_view content;
  while (!w.done()) {
    const auto [field, type] = w.tag();
    if (field == 1 && type == kVarint) {
      dtype = w.varint();
    } else if (field == 2 && type == kLen) {
      Wire shape(w.bytes(), 0);
      while (!shape.done()) {
        const auto [f, t] = shape.tag();
        if (f == 2 && t == kLen) {
          ++dims;
          shape.bytes();
        } else {
          shape.skip(t);
        }
      }
    } else if (field == 4 && type == kLen) {
      content = w.bytes();
    } else if (field == 5) {  // float_val: packed or not
      if (type == kLen) {
        const auto packed = w.bytes();
        if (packed.size() >= 4)
          value = std::bit_cast<float>(static_cast<std::uint32_t>(Wire(packed, 0).fixed(4)));
      } else {
        expect_type(w, type, kFixed32, "float_val");
        value = std::bit_cast<float>(static_cast<std::uint32_t>(w.fixed(4)));
      }
    } else if (field == 6) {  // double_val
      if (type == kLen) {
        const auto packed = w.bytes();
        if (packed.size() >= 8) value = std::bit_cast<double>(Wire(packed, 0).fixed(8));
      } else {
        expect_type(w, type, kFixed64, "double_val");
        value = std::bit_cast<double>(w.fixed(8));
      }
    } else if (field == 7 || field == 10 || field == 13) {  // int_val, int64_val, half_val (varints)
      std::uint64_t v = 0;
      if (type == kLen) {
        const auto packed = w.bytes();
        if (packed.empty()) continue;
        v = Wire(packed, 0).varint();
      } else {
        expect_type(w, type, kVarint, "an integer value");
        v = w.varint();
      }
      if (field == 13)
        value = dtype == kBfloat16 ? bf16_to_double(static_cast<std::uint32_t>(v))
                                   : half_to_double(static_cast<std::uint32_t>(v));
      else
        value = static_cast<double>(static_cast<std::int64_t>(v));
    } else {
      w.skip(type);
    }
  }
  if (dims > 1) return std::nullopt;
  if (!value && !content.empty()) {
    Wire c(content, 0);
    switch (dtype) {
      case kFloat:
        if (content.size() == 4) value = std::bit_cast<float>(static_cast<std::uint32_t>(c.fixed(4)));
        break;
      case kDouble:
        if (content.size() == 8) value = std::bit_cast<double>(c.fixed(8));
        break;
      case kHalf:
        if (content.size() == 2) value = half_to_double(static_cast<std::uint32_t>(c.fixed(2)));
        break;
      case kBfloat16:
        if (content.size() == 2) value = bf16_to_double(static_cast<std::uint32_t>(c.fixed(2)));
        break;
      case kInt32:
        if (content.size() == 4) value = static_cast<std::int32_t>(c.fixed(4));
        break;
      case kInt64:
        if (content.size() == 8) value = static_cast<double>(static_cast<std::int64_t>(c.fixed(8)));
        break;
      default:
        break;
    }
  }
  return value;
}

std::optional<Scalar> decode_value(std::string_view bytes, std::size_t base) {
  Wire w(bytes, base);
  Scalar s;
  std::optional<double> simple;
  std::string_view tensor;
  std::size_t tensor_base = 0;
  std::string plugin;
  while (!w.done()) {
    const auto [field, type] = w.tag();
    if (field == 1) {
      expect_type(w, type, kLen, "Value.tag");
      s.tag = std::string(w.bytes());
    } else if (field == 2) {
      expect_type(w, type, kFixed32, "Value.simple_value");
      simple = std::bit_cast<float>(static_cast<std::uint32_t>(w.fixed(4)));
    } else if (field == 8 && type == kLen) {
      tensor = w.bytes();
      tensor_base = w.offset_of(tensor);
    } else if (field == 9 && type == kLen) {
      Wire meta(w.bytes(), 0);
      while (!meta.done()) {
        const auto [f, t] = meta.tag();
        if (f == 1 && t == kLen) {
          Wire pd(meta.bytes(), 0);
          while (!pd.done()) {
            const auto [pf, pt] = pd.tag();
            if (pf == 1 && pt == kLen)
              plugin = std::string(pd.bytes());
            else
              pd.skip(pt);
          }
        } else {
          meta.skip(t);
        }
      }
    } else {
      w.skip(type);
    }
  }
  if (simple) {
    s.value = *simple;
    return s;
  }
  if (!tensor.empty() && (plugin.empty() || plugin == "scalars"))
    if (auto v = tensor_scalar(tensor, tensor_base)) {
      s.value = *v;
      return s;
    }
  return std::nullopt;  // histograms, images, text, ...
}

}  // namespace

std::string decode_event(std::string_view bytes, Event& out) {
  out = Event{};
  try {
    Wire w(bytes, 0);
    while (!w.done()) {
      const auto [field, type] = w.tag();
      if (field == 1) {
        expect_type(w, type, kFixed64, "Event.wall_time");
        out.wall_time = std::bit_cast<double>(w.fixed(8));
      } else if (field == 2) {
        expect_type(w, type, kVarint, "Event.step");
        out.step = static_cast<std::int64_t>(w.varint());
      } else if (field == 3 && type == kLen) {
        out.file_version = std::string(w.bytes());
      } else if (field == 5) {
        expect_type(w, type, kLen, "Event.summary");
        const std::string_view summary = w.bytes();
        Wire s(summary, w.offset_of(summary));
        while (!s.done()) {
          const auto [f, t] = s.tag();
          if (f == 1 && t == kLen) {
            const std::string_view value = s.bytes();
            if (auto v = decode_value(value, s.offset_of(value))) out.scalars.push_back(std::move(*v));
          } else {
            s.skip(t);
          }
        }
      } else {
        w.skip(type);
      }
    }
  } catch (const DecodeError& e) {
    return fmt::format("expected {} at byte {} of the record", e.what, e.at);
  }
  return {};
}

}  // namespace cann_debug::plugins::tensorboard
