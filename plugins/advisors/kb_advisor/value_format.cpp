#include "value_format.hpp"

#include <cmath>

#include <fmt/format.h>

namespace cann_debug::plugins::kb {
namespace {

// Drops trailing zeros (and a trailing point) of a fixed-point number.
std::string trim_zeros(std::string s) {
  if (s.find('.') == std::string::npos) return s;
  while (!s.empty() && s.back() == '0') s.pop_back();
  if (!s.empty() && s.back() == '.') s.pop_back();
  return s;
}

std::string format_bytes(double bytes) {
  static const char* const kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double x = bytes;
  while (std::fabs(x) >= 1024.0 && unit < 4) {
    x /= 1024.0;
    ++unit;
  }
  return format_number(unit == 0 ? std::round(x) : std::round(x * 100.0) / 100.0) + " " + kUnits[unit];
}

}  // namespace

std::string format_number(double x) {
  if (!std::isfinite(x)) return fmt::format("{}", x);
  const double a = std::fabs(x);
  if (a >= 1e6 || (a > 0.0 && a < 1e-3)) return fmt::format("{:.2e}", x);
  if (x == std::round(x)) return fmt::format("{:.0f}", x);
  // 3 significant digits, as a fixed-point number.
  const int magnitude = static_cast<int>(std::floor(std::log10(a)));
  const int decimals = std::max(0, 2 - magnitude);
  return trim_zeros(fmt::format("{:.{}f}", x, decimals));
}

std::string format_value(const nlohmann::json& value, const std::string& format) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_boolean()) return value.get<bool>() ? "true" : "false";
  if (value.is_null()) return "none";
  if (!value.is_number()) return value.dump();
  const double x = value.get<double>();
  if (format == "integer") return fmt::format("{}", std::llround(x));
  if (format == "percent") return format_number(std::round(x * 1000.0) / 10.0) + "%";
  if (format == "bytes") return format_bytes(x);
  if (format == "ratio") return format_number(x) + "x";
  return format_number(x);
}

}  // namespace cann_debug::plugins::kb
