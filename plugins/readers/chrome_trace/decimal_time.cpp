#include "decimal_time.hpp"

#include <limits>

#include <fmt/format.h>

namespace cann_debug::plugins::chrome_trace {
namespace {

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}

std::string quoted(std::string_view text) {
  return fmt::format("'{}'", text.substr(0, 40));
}

}  // namespace

std::optional<std::int64_t> decimal_us_to_ns(std::string_view text, std::string& why) {
  while (!text.empty() &&
         (text.back() == ' ' || text.back() == '\t' || text.back() == '\n' || text.back() == '\r'))
    text.remove_suffix(1);
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '-' || text[i] == '+')) negative = text[i++] == '-';
  // The significant digits are text[first, last] without the point; `point` counts those before the point.
  const std::size_t digits_begin = i;
  std::size_t significant = 0;  // number of significant digits (leading zeros dropped)
  long point = 0;
  bool any_digit = false;
  bool seen_point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (is_digit(c)) {
      any_digit = true;
      if (significant == 0 && c == '0') {
        if (seen_point) --point;  // 0.00123: each leading fractional zero moves the point left
        continue;
      }
      ++significant;
      if (!seen_point) ++point;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  const std::size_t digits_end = i;
  long exponent = 0;
  if (any_digit && i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < text.size() && (text[i] == '-' || text[i] == '+')) exp_negative = text[i++] == '-';
    if (i == text.size() || !is_digit(text[i])) {
      why = fmt::format("expected a decimal number of microseconds, got {}", quoted(text));
      return std::nullopt;
    }
    for (; i < text.size() && is_digit(text[i]); ++i)
      if (exponent < 100000) exponent = exponent * 10 + (text[i] - '0');
    if (exp_negative) exponent = -exponent;
  }
  if (!any_digit || i != text.size()) {
    why = fmt::format("expected a finite decimal number of microseconds, got {}", quoted(text));
    return std::nullopt;
  }
  if (significant == 0) return 0;
  // value = 0.d1d2d3... * 10^(point + exponent) us; the integer part in ns has `int_digits` digits.
  const long int_digits = point + exponent + 3;
  if (int_digits > 19) {
    why = fmt::format("expected a time that fits in 64-bit nanoseconds, got {}", quoted(text));
    return std::nullopt;
  }
  std::uint64_t value = 0;  // < 10^19 + 1: fits
  long taken = 0;
  bool round_up = false;
  bool started = false;
  for (std::size_t k = digits_begin; k < digits_end; ++k) {
    const char c = text[k];
    if (c == '.') continue;
    if (!started && c == '0') continue;  // leading zeros are not significant
    started = true;
    if (taken < int_digits) {
      value = value * 10 + static_cast<unsigned>(c - '0');
    } else {
      round_up = taken == int_digits && c >= '5';  // the first digit below 1 ns: half away from zero
      break;
    }
    ++taken;
  }
  for (; taken < int_digits; ++taken) value *= 10;  // trailing zeros of the integer part
  if (round_up) ++value;
  if (value > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
    why = fmt::format("expected a time that fits in 64-bit nanoseconds, got {}", quoted(text));
    return std::nullopt;
  }
  const auto ns = static_cast<std::int64_t>(value);
  return negative ? -ns : ns;
}

}  // namespace cann_debug::plugins::chrome_trace
