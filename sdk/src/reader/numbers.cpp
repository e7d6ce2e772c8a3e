#include "cann_debug/reader/numbers.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

#include <fmt/format.h>

#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::readers {
namespace {

std::optional<double> nonfinite(std::string_view t) {
  bool negative = false;
  if (!t.empty() && (t.front() == '+' || t.front() == '-')) {
    negative = t.front() == '-';
    t.remove_prefix(1);
  }
  if (iequals(t, "nan")) return std::numeric_limits<double>::quiet_NaN();
  if (iequals(t, "inf") || iequals(t, "infinity"))
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  return std::nullopt;
}

}  // namespace

std::optional<double> parse_double(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (auto v = nonfinite(text)) return v;
  std::string_view t = text;
  if (t.front() == '+') {
    t.remove_prefix(1);
    if (t.empty() || t.front() == '+' || t.front() == '-') return std::nullopt;
  }
  const std::size_t k = t.front() == '-' ? 1 : 0;
  if (k >= t.size()) return std::nullopt;
  // from_chars would take hex only with chars_format::hex; this keeps "0x10", "e5", " 1" out.
  if (!((t[k] >= '0' && t[k] <= '9') || t[k] == '.')) return std::nullopt;
  double value = 0;
  const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), value, std::chars_format::general);
  if (ec != std::errc() || ptr != t.data() + t.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> parse_int(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> parse_uint(std::string_view text) {
  if (!text.empty() && text.front() == '+') text.remove_prefix(1);
  if (text.empty() || text.front() == '-') return std::nullopt;
  std::uint64_t value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value, 10);
  if (ec != std::errc() || ptr != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::int64_t> decimal_scaled(std::string_view text, int scale) {
  std::string_view t = text;
  bool negative = false;
  if (!t.empty() && (t.front() == '+' || t.front() == '-')) {
    negative = t.front() == '-';
    t.remove_prefix(1);
  }
  // Mantissa digits (without the point) and the power of ten that applies to them.
  std::string digits;
  int exponent = 0;
  bool seen_point = false;
  bool any_digit = false;
  std::size_t i = 0;
  for (; i < t.size(); ++i) {
    const char c = t[i];
    if (c >= '0' && c <= '9') {
      any_digit = true;
      if (digits.empty() && c == '0') {
        if (seen_point) --exponent;
        continue;  // leading zeros carry no value
      }
      digits += c;
      if (seen_point) --exponent;
      if (digits.size() > 40) return std::nullopt;
    } else if (c == '.' && !seen_point) {
      seen_point = true;
    } else {
      break;
    }
  }
  if (!any_digit) return std::nullopt;
  if (i < t.size()) {
    if (t[i] != 'e' && t[i] != 'E') return std::nullopt;
    auto e = parse_int(t.substr(i + 1));
    if (!e || *e > 400 || *e < -400) return std::nullopt;
    exponent += static_cast<int>(*e);
  }
  exponent += scale;
  if (digits.empty()) return 0;
  // Drop digits below the units, rounding half away from zero.
  bool round_up = false;
  if (exponent < 0) {
    const auto drop = static_cast<std::size_t>(-exponent);
    if (drop > digits.size()) return 0;
    round_up = digits[digits.size() - drop] >= '5';
    digits.resize(digits.size() - drop);
    exponent = 0;
  }
  constexpr std::uint64_t kMax = static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max());
  std::uint64_t v = 0;
  auto push = [&v](unsigned d) {
    if (v > (kMax - d) / 10) return false;
    v = v * 10 + d;
    return true;
  };
  for (char c : digits)
    if (!push(static_cast<unsigned>(c - '0'))) return std::nullopt;
  for (int k = 0; k < exponent; ++k)
    if (!push(0)) return std::nullopt;
  if (round_up) {
    if (v == kMax) return std::nullopt;
    ++v;
  }
  const auto s = static_cast<std::int64_t>(v);
  return negative ? -s : s;
}

std::string shortest_decimal(double value) {
  return fmt::format("{}", value);
}

std::optional<std::int64_t> double_scaled(double value, int scale) {
  if (!std::isfinite(value)) return std::nullopt;
  return decimal_scaled(shortest_decimal(value), scale);
}

std::string_view nonfinite_name(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return {};
}

}  // namespace cann_debug::plugins::readers
