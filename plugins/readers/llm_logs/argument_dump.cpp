// Argument dumps of Megatron-style trainers; see argument_dump.hpp.
#include "argument_dump.hpp"

#include <cctype>
#include <charconv>
#include <cmath>

#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::llm_logs {
namespace {

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_';
}

nlohmann::json typed_value(std::string_view v) {
  if (v == "True") return true;
  if (v == "False") return false;
  if (v == "None") return nullptr;
  double x = 0.0;
  const auto [end, ec] = std::from_chars(v.data(), v.data() + v.size(), x);
  if (ec == std::errc() && end == v.data() + v.size() && std::isfinite(x)) {
    std::int64_t i = 0;
    const auto [iend, iec] = std::from_chars(v.data(), v.data() + v.size(), i);
    if (iec == std::errc() && iend == v.data() + v.size()) return i;
    return x;
  }
  return std::string(v);
}

}  // namespace

bool is_argument_dump_start(std::string_view text) {
  return text.find("------------------------ arguments ------------------------") != std::string_view::npos;
}

bool is_argument_dump_end(std::string_view text) {
  return text.find("-------------------- end of arguments ---------------------") != std::string_view::npos;
}

std::optional<std::pair<std::string, nlohmann::json>> parse_argument_line(std::string_view text) {
  // The dots run from one space after the name to one space before the value.
  const std::size_t dots = text.find(" ..");
  if (dots == std::string_view::npos || dots == 0) return std::nullopt;
  std::size_t name_start = dots;
  while (name_start > 0 && is_name_char(text[name_start - 1])) --name_start;
  if (name_start == dots) return std::nullopt;
  // Before the name: indentation, possibly behind a launcher's "host: " prefix.
  const std::string_view before = text.substr(0, name_start);
  if (!before.empty() && !std::isspace(static_cast<unsigned char>(before.back()))) return std::nullopt;
  std::size_t value_start = dots + 1;
  while (value_start < text.size() && text[value_start] == '.') ++value_start;
  // At least three dots, then a space and a value ("loading checkpoint ..." is prose).
  if (value_start - (dots + 1) < 3 || value_start >= text.size() || text[value_start] != ' ')
    return std::nullopt;
  const std::string_view value = readers::trim(text.substr(value_start));
  if (value.empty()) return std::nullopt;
  return std::make_pair(std::string(text.substr(name_start, dots - name_start)), typed_value(value));
}

}  // namespace cann_debug::plugins::llm_logs
