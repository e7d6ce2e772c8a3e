#include "cann_debug/reader/text.hpp"

#include "cann_debug/reader/numbers.hpp"

#include <array>
#include <cctype>
#include <chrono>

#include <fmt/format.h>

namespace cann_debug::plugins::readers {
namespace {

bool is_alnum(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) != 0;
}
bool is_upper(char c) {
  return c >= 'A' && c <= 'Z';
}
bool is_lower(char c) {
  return c >= 'a' && c <= 'z';
}
bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
char lower(char c) {
  return static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
}

}  // namespace

std::string printable(std::string_view text, std::size_t max_chars) {
  std::string out;
  for (char c : text) {
    if (out.size() >= max_chars) {
      out += "...";
      break;
    }
    const auto u = static_cast<unsigned char>(c);
    if (u >= 0x20 && u < 0x7f)
      out += c;
    else if (c == '\t')
      out += "\\t";
    else
      out += fmt::format("\\x{:02x}", u);
  }
  return out;
}

std::string snake_case(std::string_view text) {
  std::string out;
  bool pending_sep = false;
  auto put = [&](char c) {
    if (pending_sep && !out.empty()) out += '_';
    pending_sep = false;
    out += c;
  };
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '%') {
      pending_sep = true;
      put('p');
      out += "ct";
      pending_sep = true;
      continue;
    }
    if (!is_alnum(c)) {
      pending_sep = true;
      continue;
    }
    if (is_upper(c) && i > 0) {
      const char prev = text[i - 1];
      const bool next_lower = i + 1 < text.size() && is_lower(text[i + 1]);
      // camelCase ("rxPacket") and the end of an acronym ("HBMUsage" -> hbm_usage).
      if (is_lower(prev) || (is_upper(prev) && next_lower) || (is_digit(prev) && next_lower))
        pending_sep = true;
    }
    put(lower(c));
  }
  return out;
}

std::string_view trim(std::string_view text) {
  constexpr std::string_view ws = " \t\r\n";
  const auto b = text.find_first_not_of(ws);
  if (b == std::string_view::npos) return {};
  const auto e = text.find_last_not_of(ws);
  return text.substr(b, e - b + 1);
}

std::vector<std::string_view> split_ws(std::string_view text) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < text.size()) {
    while (i < text.size() && (text[i] == ' ' || text[i] == '\t')) ++i;
    const std::size_t b = i;
    while (i < text.size() && text[i] != ' ' && text[i] != '\t') ++i;
    if (i > b) out.push_back(text.substr(b, i - b));
  }
  return out;
}

std::vector<std::string_view> split(std::string_view text, char separator) {
  std::vector<std::string_view> out;
  std::size_t b = 0;
  for (;;) {
    const auto e = text.find(separator, b);
    if (e == std::string_view::npos) {
      out.push_back(text.substr(b));
      return out;
    }
    out.push_back(text.substr(b, e - b));
    b = e + 1;
  }
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (lower(a[i]) != lower(b[i])) return false;
  return true;
}

bool istarts_with(std::string_view text, std::string_view prefix) {
  return text.size() >= prefix.size() && iequals(text.substr(0, prefix.size()), prefix);
}

bool icontains(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  for (std::size_t i = 0; i + needle.size() <= text.size(); ++i)
    if (iequals(text.substr(i, needle.size()), needle)) return true;
  return false;
}

std::size_t invalid_utf8_at(std::string_view text) {
  std::size_t i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    const auto c = static_cast<unsigned char>(text[i]);
    if (c < 0x80) {
      ++i;
      continue;
    }
    std::size_t len = 0;
    unsigned min = 0;
    unsigned cp = 0;
    if ((c & 0xe0) == 0xc0) {
      len = 2, cp = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
      len = 3, cp = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
      len = 4, cp = c & 0x07, min = 0x10000;
    } else {
      return i;
    }
    if (i + len > n) return i;
    for (std::size_t k = 1; k < len; ++k) {
      const auto cc = static_cast<unsigned char>(text[i + k]);
      if ((cc & 0xc0) != 0x80) return i;
      cp = (cp << 6) | (cc & 0x3f);
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return i;
    i += len;
  }
  return std::string_view::npos;
}

std::size_t control_byte_at(std::string_view text) {
  for (std::size_t i = 0; i < text.size(); ++i) {
    const auto c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\t' && c != '\r' && c != '\n') || c == 0x7f) return i;
  }
  return std::string_view::npos;
}

std::string why_not_text(std::string_view text) {
  if (auto i = control_byte_at(text); i != std::string_view::npos)
    return fmt::format("expected text, got the control byte \\x{:02x} at column {} (binary data?)",
                       static_cast<unsigned char>(text[i]), i + 1);
  if (auto i = invalid_utf8_at(text); i != std::string_view::npos)
    return fmt::format(
        "expected UTF-8 text, got the byte \\x{:02x} at column {} (binary data or another encoding?)",
        static_cast<unsigned char>(text[i]), i + 1);
  return {};
}

namespace {

int month_of(std::string_view m) {
  constexpr std::array<std::string_view, 12> kMonths{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  for (std::size_t i = 0; i < kMonths.size(); ++i)
    if (m == kMonths[i]) return static_cast<int>(i) + 1;
  return 0;
}

}  // namespace

std::optional<std::int64_t> ctime_utc_ns(std::string_view t) {
  const auto parts = split_ws(t);
  if (parts.size() != 5) return std::nullopt;
  const int month = month_of(parts[1]);
  const auto day = parse_int(parts[2]);
  const auto year = parse_int(parts[4]);
  const auto hms = split(parts[3], ':');
  if (!month || !day || !year || hms.size() != 3) return std::nullopt;
  // Nanoseconds since 1970 in int64 hold the years 1678 to 2261: others are no timestamp.
  if (*year < 1678 || *year > 2261) return std::nullopt;
  const auto h = parse_int(hms[0]), mi = parse_int(hms[1]), s = parse_int(hms[2]);
  if (!h || !mi || !s || *h < 0 || *mi < 0 || *s < 0 || *h > 23 || *mi > 59 || *s > 60) return std::nullopt;
  const std::chrono::year_month_day ymd{std::chrono::year(static_cast<int>(*year)),
                                        std::chrono::month(static_cast<unsigned>(month)),
                                        std::chrono::day(static_cast<unsigned>(*day))};
  if (!ymd.ok()) return std::nullopt;
  const auto days = std::chrono::sys_days(ymd).time_since_epoch().count();
  return (((static_cast<std::int64_t>(days) * 24 + *h) * 60 + *mi) * 60 + *s) * 1'000'000'000;
}

}  // namespace cann_debug::plugins::readers
