// Splitting /proc and /sys text into lines and blank-separated fields without streams or copies: the
// samplers parse these files up to a hundred times a second.
#pragma once

#include <charconv>
#include <optional>
#include <string_view>
#include <system_error>
#include <type_traits>

namespace cann_debug::plugins::sampler_support {

/// The next line of `text` (without its '\n'), removed from `text`.
inline std::string_view next_line(std::string_view& text) {
  const auto nl = text.find('\n');
  const std::string_view line = text.substr(0, nl);
  text.remove_prefix(nl == std::string_view::npos ? text.size() : nl + 1);
  return line;
}

inline bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\n';
}

/// The next blank-separated field of `line`, removed from `line`; empty when there is none.
inline std::string_view next_field(std::string_view& line) {
  std::size_t i = 0;
  while (i < line.size() && is_blank(line[i])) ++i;
  std::size_t j = i;
  while (j < line.size() && !is_blank(line[j])) ++j;
  const std::string_view field = line.substr(i, j - i);
  line.remove_prefix(j);
  return field;
}

/// The whole of `field` as a decimal number of type T; nullopt when it is not exactly one.
template <typename T>
std::optional<T> to_number(std::string_view field) {
  static_assert(std::is_integral_v<T>);
  if (field.empty()) return std::nullopt;
  if constexpr (std::is_unsigned_v<T>)
    if (field.front() == '-') return std::nullopt;
  T value{};
  const auto [end, ec] = std::from_chars(field.data(), field.data() + field.size(), value);
  if (ec != std::errc() || end != field.data() + field.size()) return std::nullopt;
  return value;
}

}  // namespace cann_debug::plugins::sampler_support
