#include "value_scanner.hpp"

#include <cstring>

#include <fmt/format.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace cann_debug::plugins::chrome_trace {
namespace {

#if defined(__SSE2__)
struct BlockBits {
  std::uint64_t quote;
  std::uint64_t backslash;
  std::uint64_t open;   // '{' or '['
  std::uint64_t close;  // '}' or ']'
};

inline std::uint64_t mask16(__m128i v, __m128i c) {
  return static_cast<std::uint64_t>(static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, c))));
}

inline BlockBits classify(const char* p) {
  const __m128i quote = _mm_set1_epi8('"');
  const __m128i backslash = _mm_set1_epi8('\\');
  const __m128i open = _mm_set1_epi8('{');   // '[' | 0x20 == '{'
  const __m128i close = _mm_set1_epi8('}');  // ']' | 0x20 == '}'
  const __m128i lower = _mm_set1_epi8(0x20);
  BlockBits b{0, 0, 0, 0};
  for (int k = 0; k < 4; ++k) {
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + 16 * k));
    const __m128i folded = _mm_or_si128(v, lower);
    const int shift = 16 * k;
    b.quote |= mask16(v, quote) << shift;
    b.backslash |= mask16(v, backslash) << shift;
    b.open |= mask16(folded, open) << shift;
    b.close |= mask16(folded, close) << shift;
  }
  return b;
}
#endif

// Bit i of the result is the xor of bits 0..i of x: 1 between an opening quote and its closing one.
inline std::uint64_t prefix_xor(std::uint64_t x) {
  x ^= x << 1;
  x ^= x << 2;
  x ^= x << 4;
  x ^= x << 8;
  x ^= x << 16;
  x ^= x << 32;
  return x;
}

}  // namespace

void ValueScanner::reset() {
  pos_ = 0;
  string_start_ = 0;
  in_string_ = false;
  first_ = 0;
  stack_.clear();
  error_.clear();
  error_pos_ = 0;
}

const char* ValueScanner::kind() const {
  switch (first_) {
    case '{':
      return "an object";
    case '[':
      return "an array";
    case '"':
      return "a string";
    default:
      return "a scalar";
  }
}

ValueScanner::Status ValueScanner::fail(std::size_t pos, std::string message) {
  error_pos_ = pos;
  error_ = std::move(message);
  return Status::kError;
}

ValueScanner::Status ValueScanner::on_bracket(const char* p, std::size_t i, std::size_t* length, bool* done) {
  const char c = p[i];
  if (c == '{' || c == '[') {
    if (static_cast<int>(stack_.size()) >= max_depth_)
      return fail(i, fmt::format("expected JSON nested at most {} levels deep", max_depth_));
    stack_.push_back(c);
    return Status::kNeedMore;
  }
  const char open = c == '}' ? '{' : '[';
  if (stack_.back() != open)
    return fail(i, fmt::format("expected '{}' to close the '{}' opened before, got '{}'",
                               stack_.back() == '{' ? '}' : ']', stack_.back(), c));
  stack_.pop_back();
  if (stack_.empty()) {
    *length = i + 1;
    *done = true;
  }
  return Status::kNeedMore;
}

bool ValueScanner::scan_block(const char* p, std::size_t n, std::size_t* length, Status* status) {
#if defined(__SSE2__)
  const std::size_t valid = n - pos_ < 64 ? n - pos_ : 64;
  const std::uint64_t valid_mask = valid == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << valid) - 1;
  // A backslash in the block, or just before it inside a string (it may escape the block's first byte): the
  // byte path counts backslash runs instead.
  if (in_string_ && pos_ > 0 && p[pos_ - 1] == '\\') return false;
  const BlockBits b = classify(p + pos_);
  if ((b.backslash & valid_mask) != 0) return false;
  const std::uint64_t quotes = b.quote & valid_mask;
  const std::uint64_t inside = prefix_xor(quotes) ^ (in_string_ ? ~std::uint64_t{0} : 0);
  std::uint64_t brackets = (b.open | b.close) & ~inside & valid_mask;
  while (brackets != 0) {
    const std::size_t i = pos_ + static_cast<std::size_t>(__builtin_ctzll(brackets));
    bool done = false;
    *status = on_bracket(p, i, length, &done);
    if (*status == Status::kError) return true;
    if (done) {
      *status = Status::kComplete;
      return true;
    }
    brackets &= brackets - 1;
  }
  // State at the end of the valid bytes: inside a string iff bit valid-1 of `inside` is set; the string then
  // starts after the block's last quote (or before the block), which the byte path needs to count
  // backslashes.
  in_string_ = (inside >> (valid - 1)) & 1;
  if (in_string_ && quotes != 0)
    string_start_ = pos_ + 64 - static_cast<std::size_t>(__builtin_clzll(quotes));
  pos_ += valid;
  *status = Status::kNeedMore;
  return true;
#else
  (void)p;
  (void)n;
  (void)length;
  (void)status;
  return false;
#endif
}

ValueScanner::Status ValueScanner::scan(const char* p, std::size_t n, std::size_t* length, bool padded) {
  if (pos_ == 0 && n > 0 && first_ == 0) first_ = p[0];
  std::size_t i = pos_;
  while (i < n) {
    if (padded && !stack_.empty()) {
      pos_ = i;
      Status status;
      if (scan_block(p, n, length, &status)) {
        if (status != Status::kNeedMore) return status;
        i = pos_;
        continue;
      }
      // A backslash in this block: take it byte by byte, up to the end of the block.
      const std::size_t end = i + 64 < n ? i + 64 : n;
      while (i < end && !stack_.empty()) {
        const char c = p[i];
        if (in_string_) {
          if (c == '"') {
            std::size_t k = i;
            while (k > string_start_ && p[k - 1] == '\\') --k;
            if ((i - k) % 2 == 0) in_string_ = false;
          }
          ++i;
          continue;
        }
        if (c == '"') {
          in_string_ = true;
          string_start_ = i + 1;
        } else if (c == '{' || c == '[' || c == '}' || c == ']') {
          bool done = false;
          const Status s = on_bracket(p, i, length, &done);
          if (s == Status::kError) return s;
          if (done) return Status::kComplete;
        }
        ++i;
      }
      continue;
    }
    if (in_string_) {
      const auto* q = static_cast<const char*>(std::memchr(p + i, '"', n - i));
      if (q == nullptr) {
        i = n;
        break;
      }
      const std::size_t quote = static_cast<std::size_t>(q - p);
      std::size_t k = quote;
      while (k > string_start_ && p[k - 1] == '\\') --k;
      i = quote + 1;
      if ((quote - k) % 2 == 1) continue;  // an escaped quote
      in_string_ = false;
      if (stack_.empty()) {
        *length = i;
        return Status::kComplete;
      }
      continue;
    }
    const char c = p[i];
    switch (c) {
      case '"':
        in_string_ = true;
        string_start_ = i + 1;
        ++i;
        break;
      case '{':
      case '[': {
        if (stack_.empty() && i > 0) {  // a scalar followed by a bracket: the scalar ended before it
          *length = i;
          return Status::kComplete;
        }
        bool done = false;
        if (on_bracket(p, i, length, &done) == Status::kError) return Status::kError;
        ++i;
        break;
      }
      case '}':
      case ']': {
        if (stack_.empty()) {  // ends a scalar (or is stray; the caller checks what follows)
          *length = i;
          return Status::kComplete;
        }
        bool done = false;
        if (on_bracket(p, i, length, &done) == Status::kError) return Status::kError;
        if (done) return Status::kComplete;
        ++i;
        break;
      }
      case ',':
      case ' ':
      case '\t':
      case '\r':
      case '\n':
        if (stack_.empty()) {  // the end of a scalar
          *length = i;
          return Status::kComplete;
        }
        ++i;
        break;
      default:
        ++i;
    }
  }
  pos_ = i;
  return Status::kNeedMore;
}

bool ValueScanner::complete_at_eof(std::size_t n, std::size_t* length) const {
  if (in_string_ || !stack_.empty() || n == 0) return false;
  *length = n;
  return true;
}

}  // namespace cann_debug::plugins::chrome_trace
