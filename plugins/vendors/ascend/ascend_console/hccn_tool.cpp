#include "ascend_console/hccn_tool.hpp"

#include <regex>

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {
namespace {

using readers::printable;
using readers::trim;

const std::regex& counter_re() {
  static const std::regex re(R"(^([a-z][a-z0-9_]*_(?:num|cnt|count)):\s*(.*)$)");
  return re;
}
const std::regex& devid_re() {
  static const std::regex re(R"(^\[devid (\d{1,7})\]\s*(.*)$)");
  return re;
}
const std::regex& bandwidth_re() {
  static const std::regex re(R"(^Bandwidth (TX|RX):\s*(\S+)\s*(\S*)$)", std::regex::icase);
  return re;
}

// std::regex recurses per character: lines longer than any hccn_tool line are not matched at all.
constexpr std::size_t kLongestLine = 512;

}  // namespace

bool HccnToolParser::recognises(std::string_view text) {
  const auto t = trim(text);
  if (t.size() > kLongestLine) return false;
  const std::string s(t);
  return t == "packet statistics:" || t == "optical info:" || readers::istarts_with(t, "link status:") ||
         readers::istarts_with(t, "net health status:") || readers::istarts_with(t, "Bandwidth TX:") ||
         readers::istarts_with(t, "Bandwidth RX:") || std::regex_match(s, devid_re()) ||
         std::regex_match(s, counter_re());
}

void HccnToolParser::feed(const Line& line, std::vector<MetricPoint>& out) {
  std::string text(trim(line.text));
  if (text.empty()) {
    in_optical_ = false;
    return;
  }
  if (text.size() > kLongestLine) return;  // not an hccn_tool line
  std::int32_t device = ctx_.device;
  std::smatch m;
  if (std::regex_match(text, m, devid_re())) {
    device = static_cast<std::int32_t>(std::stol(m[1].str()));
    text = m[2].str();
  }
  auto number = [&](std::string_view name, std::string_view value, double& v) {
    const Value r = console_number(value, v);
    if (r == Value::kBad)
      fail(ctx_, line,
           fmt::format("expected a number for '{}', got '{}'", printable(name), printable(value)));
    return r == Value::kNumber;
  };
  if (text == "packet statistics:") {
    in_optical_ = false;
    return;
  }
  if (text == "optical info:") {
    in_optical_ = true;
    return;
  }
  if (std::regex_match(text, m, counter_re())) {
    const std::string name = m[1].str();
    const std::string value(trim(m[2].str()));
    auto v = readers::parse_uint(value);
    std::optional<double> d;
    if (!v) d = readers::parse_double(value);  // some tools print 8.07084E+13
    if (!v && !(d && *d >= 0))
      fail(ctx_, line,
           fmt::format("expected a non-negative integer for counter '{}', got '{}'", printable(name),
                       printable(value)));
    out.push_back(
        make_point(ctx_, hccn_counter_metric(name), v ? static_cast<double>(*v) : *d, name, device));
    return;
  }
  if (std::regex_match(text, m, bandwidth_re())) {
    double v = 0;
    const std::string dir = m[1].str();
    const std::string unit = m[3].str();
    if (!unit.empty() && !readers::iequals(unit, "MB/sec") && !readers::iequals(unit, "MB/s"))
      fail(ctx_, line, fmt::format("expected a bandwidth in MB/sec, got the unit '{}'", printable(unit)));
    if (number(fmt::format("Bandwidth {}", dir), m[2].str(), v)) {
      const bool tx = readers::iequals(dir, "TX");
      out.push_back(make_point(ctx_,
                               {tx ? "roce.port.tx_bandwidth" : "roce.port.rx_bandwidth", "bytes/s", 1e6, {}},
                               v, fmt::format("Bandwidth {}", dir), device));
    }
    return;
  }
  const auto colon = text.find(':');
  if (colon == std::string::npos) return;
  const std::string_view key = trim(std::string_view(text).substr(0, colon));
  const std::string_view value = trim(std::string_view(text).substr(colon + 1));
  if (in_optical_) {
    optical(line, key, value, out);
    return;
  }
  if (readers::iequals(key, "link status")) {
    MetricPoint p = make_point(ctx_, {"roce.port.link_up", "state", 1, {}},
                               readers::iequals(value, "UP") ? 1 : 0, "link status", device);
    p.labels["status"] = std::string(value);
    out.push_back(std::move(p));
  } else if (readers::iequals(key, "link up count")) {
    double v = 0;
    if (number(key, value, v))
      out.push_back(make_point(ctx_, {"roce.port.link_up_count", "count", 1, {}}, v, key, device));
  } else if (readers::iequals(key, "Speed")) {
    double v = 0;
    if (number(key, value, v))
      out.push_back(make_point(ctx_, {"roce.port.speed", "bits/s", 1e6, {}}, v, key, device));
  } else if (readers::iequals(key, "net health status")) {
    MetricPoint p =
        make_point(ctx_, {"roce.port.net_health", "state", 1, {}}, net_health_code(value), key, device);
    p.labels["status"] = std::string(value);
    out.push_back(std::move(p));
  }
}

void HccnToolParser::optical(const Line& line, std::string_view key, std::string_view value,
                             std::vector<MetricPoint>& out) {
  static const std::regex lane_re(R"(^(Tx Power|Rx Power|Tx Bias|Media SNR Lane|Host SNR Lane)\s*(\d)$)");
  std::cmatch m;
  MetricName metric;
  if (readers::iequals(key, "temperature")) {
    metric = {"roce.optical.temperature", "celsius", 1, {}};
  } else if (readers::iequals(key, "Vcc")) {
    metric = {"roce.optical.vcc", "volts", 1e-3, {}};
  } else if (std::regex_match(key.data(), key.data() + key.size(), m, lane_re)) {
    const std::string kind = m[1].str();
    if (kind == "Tx Power") metric = {"roce.optical.tx_power", "watts", 1e-3, {}};
    if (kind == "Rx Power") metric = {"roce.optical.rx_power", "watts", 1e-3, {}};
    if (kind == "Tx Bias") metric = {"roce.optical.tx_bias", "amperes", 1e-3, {}};
    if (kind == "Media SNR Lane") metric = {"roce.optical.media_snr", "dB", 1, {}};
    if (kind == "Host SNR Lane") metric = {"roce.optical.host_snr", "dB", 1, {}};
    metric.labels["lane"] = m[2].str();
  } else {
    return;  // vendor, serial, thresholds, flags
  }
  double v = 0;
  const Value r = console_number(value, v);
  if (r == Value::kBad)
    fail(ctx_, line,
         fmt::format("expected a number for optical '{}', got '{}'", printable(key), printable(value)));
  if (r == Value::kNumber) out.push_back(make_point(ctx_, metric, v, key, ctx_.device));
}

}  // namespace cann_debug::plugins::ascend_console
