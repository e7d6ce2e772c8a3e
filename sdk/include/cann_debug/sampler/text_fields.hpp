// Splitting /proc and /sys text into lines and blank-separated fields without streams or copies: the
// samplers parse these files up to a hundred times a second.
#pragma once

#include <charconv>
#include <cstdint>
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

/// Walks "Key:   123 kB" lines (/proc/meminfo for procfs and ddr): calls use(key, value) for every line
/// whose first field after the colon is a number, the value in bytes when the unit is kB and as written
/// otherwise (counts such as HugePages_Total). Keys are without the colon. A `use` that returns bool stops
/// the walk by returning false (it has every line it wants: the kernel prints MemTotal..Cached first).
template <typename Use>
void for_each_meminfo_line(std::string_view text, Use&& use) {
  while (!text.empty()) {
    std::string_view line = next_line(text);
    const auto colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string_view rest = line.substr(colon + 1);
    const auto v = to_number<std::uint64_t>(next_field(rest));
    if (!v) continue;
    const std::uint64_t value = next_field(rest) == "kB" ? *v * 1024 : *v;
    if constexpr (std::is_same_v<std::invoke_result_t<Use&, std::string_view, std::uint64_t>, bool>) {
      if (!use(line.substr(0, colon), value)) return;
    } else {
      use(line.substr(0, colon), value);
    }
  }
}

}  // namespace cann_debug::plugins::sampler_support
