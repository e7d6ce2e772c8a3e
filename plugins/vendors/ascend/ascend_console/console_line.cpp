#include "ascend_console/console_line.hpp"

#include <chrono>
#include <regex>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {

MetricPoint make_point(const ConsoleContext& ctx, const MetricName& m, double vendor_value,
                       std::string_view source_name, std::int32_t device, std::int32_t chip) {
  MetricPoint p;
  p.name = m.name;
  p.unit = m.unit;
  p.value = vendor_value * m.scale;
  p.key.timestamp_ns = ctx.timestamp;
  p.labels = m.labels;
  if (device >= 0) {
    p.key.device = device;
    p.labels["device"] = std::to_string(device);
  }
  if (chip >= 0) p.labels["chip"] = std::to_string(chip);
  if (ctx.port >= 0) p.labels["port"] = std::to_string(ctx.port);
  if (!ctx.node.empty()) {
    p.key.node_id = ctx.node;
    p.labels["node"] = ctx.node;
  }
  p.labels["source_name"] = std::string(source_name);
  return p;
}

void fail(const ConsoleContext& ctx, const Line& line, std::string_view what) {
  readers::fail_line(ctx.path.empty() ? std::string_view("<command output>") : std::string_view(ctx.path),
                     line.number, line.offset, what);
}

Value console_number(std::string_view text, double& out) {
  const std::string_view t = readers::trim(text);
  if (t.empty() || readers::iequals(t, "NA") || readers::iequals(t, "N/A") || t == "-" || t == "--" ||
      readers::iequals(t, "not supported") || readers::iequals(t, "unknown") ||
      readers::iequals(t, "Unknown!"))
    return Value::kNotAvailable;
  if (auto v = readers::parse_double(t)) {
    out = *v;
    return Value::kNumber;
  }
  const auto words = readers::split_ws(t);
  if (words.size() == 2)
    if (auto v = readers::parse_double(words[0])) {
      out = *v;
      return Value::kNumber;
    }
  return Value::kBad;
}

std::optional<TimestampNs> parse_datetime(std::string_view text, std::int64_t utc_offset_s) {
  static const std::regex re(
      R"(^\s*(\d{4})[-/](\d{1,2})[-/](\d{1,2})[ T](\d{1,2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?\s*$)");
  std::cmatch m;
  if (text.size() > 64 || !std::regex_match(text.data(), text.data() + text.size(), m, re))
    return std::nullopt;
  using namespace std::chrono;
  // Nanoseconds since 1970 in int64 hold the years 1678 to 2261: others are no timestamp.
  if (const int y = std::stoi(m[1].str()); y < 1678 || y > 2261) return std::nullopt;
  const year_month_day ymd{year{std::stoi(m[1].str())}, month{static_cast<unsigned>(std::stoi(m[2].str()))},
                           day{static_cast<unsigned>(std::stoi(m[3].str()))}};
  if (!ymd.ok()) return std::nullopt;
  const int h = std::stoi(m[4].str()), mi = std::stoi(m[5].str()), s = std::stoi(m[6].str());
  if (h > 23 || mi > 59 || s > 60) return std::nullopt;
  std::int64_t ns = duration_cast<nanoseconds>(sys_days{ymd}.time_since_epoch()).count();
  ns += ((static_cast<std::int64_t>(h) * 60 + mi) * 60 + s - utc_offset_s) * 1'000'000'000LL;
  if (m[7].matched) {
    std::string frac = m[7].str();
    frac.resize(9, '0');
    ns += std::stoll(frac);
  }
  return ns;
}

std::optional<std::int64_t> parse_utc_offset(std::string_view text) {
  const std::string_view t = readers::trim(text);
  if (t.empty() || t == "Z" || t == "z") return 0;
  static const std::regex re(R"(^([+-])(\d{2}):?(\d{2})$)");
  std::cmatch m;
  if (t.size() > 8 || !std::regex_match(t.data(), t.data() + t.size(), m, re)) return std::nullopt;
  const int h = std::stoi(m[2].str()), mi = std::stoi(m[3].str());
  if (h > 14 || mi > 59) return std::nullopt;
  const std::int64_t s = (h * 60 + mi) * 60;
  return m[1] == "-" ? -s : s;
}

}  // namespace cann_debug::plugins::ascend_console
