#include "ascend_console/npu_smi_kv.hpp"

#include <fmt/format.h>

#include "ascend_console/device_fault_codes.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {
namespace {

bool split_key_value(std::string_view text, std::string_view& key, std::string_view& value) {
  auto colon = text.find(" : ");
  std::size_t skip = 3;
  if (colon == std::string_view::npos) {
    colon = text.find(':');
    skip = 1;
  }
  if (colon == std::string_view::npos) return false;
  key = readers::trim(text.substr(0, colon));
  value = readers::trim(text.substr(colon + skip));
  return !key.empty() && key.find_first_of("[]") == std::string_view::npos;
}

}  // namespace

bool NpuSmiKeyValueParser::is_key_value(std::string_view text) {
  std::string_view key, value;
  return text.find(" : ") != std::string_view::npos && split_key_value(text, key, value);
}

void NpuSmiKeyValueParser::feed(const Line& line, std::vector<MetricPoint>& out) {
  std::string_view key, value;
  if (!split_key_value(line.text, key, value)) return;
  const auto id = [&](std::string_view what) -> std::int32_t {
    auto v = readers::parse_int(value);
    if (!v || *v < 0 || *v > INT32_MAX)
      fail(ctx_, line,
           fmt::format("expected an integer {} after '{}', got '{}'", what, readers::printable(key),
                       readers::printable(value)));
    return static_cast<std::int32_t>(*v);
  };
  if (readers::iequals(key, "NPU ID")) {
    flush(out);
    device_ = id("NPU id");
    chip_ = -1;
    chip_leads_ = seen_value_ = false;
    return;
  }
  if (readers::iequals(key, "Chip ID")) {
    const std::int32_t chip = id("chip id");
    if (!seen_value_) chip_leads_ = true;
    if (chip_leads_) {
      chip_ = chip;
    } else {  // the id closes the group of values before it
      for (std::size_t i = group_start_; i < pending_.size(); ++i)
        pending_[i].labels["chip"] = std::to_string(chip);
      group_start_ = pending_.size();
    }
    return;
  }
  const std::int32_t device = device_ >= 0 ? device_ : ctx_.device;
  const std::int32_t chip = chip_leads_ ? chip_ : ctx_.chip;
  if (readers::iequals(key, "Health Status")) {
    MetricPoint p = make_point(ctx_, {"npu.health", "state", 1, {}}, health_state(value), key, device, chip);
    p.labels["health"] = std::string(value);
    p.labels["line"] = std::to_string(line.number);
    pending_.push_back(std::move(p));
    seen_value_ = true;
    return;
  }
  if (readers::iequals(key, "Error Code")) {  // -t health: "NA", or the device's fault event ids
    seen_value_ = true;
    const auto codes = error_codes_of(value);
    if (codes.empty()) return;
    MetricPoint p = make_point(ctx_, {"npu.error_codes", "count", 1, {}}, static_cast<double>(codes.size()),
                               key, device, chip);
    p.labels["error_code"] = fmt::format("{}", fmt::join(codes, " "));
    p.labels["line"] = std::to_string(line.number);
    pending_.push_back(std::move(p));
    return;
  }
  const auto metric = npu_smi_metric(key);
  if (!metric) return;
  double v = 0;
  const Value r = console_number(value, v);
  if (r == Value::kBad)
    fail(ctx_, line,
         fmt::format("expected a number for '{}', got '{}'", readers::printable(key),
                     readers::printable(value)));
  seen_value_ = true;
  if (r == Value::kNotAvailable) return;
  pending_.push_back(make_point(ctx_, *metric, v, key, device, chip));
}

void NpuSmiKeyValueParser::flush(std::vector<MetricPoint>& out) {
  for (auto& p : pending_) out.push_back(std::move(p));
  pending_.clear();
  group_start_ = 0;
}

void NpuSmiKeyValueParser::finish(std::vector<MetricPoint>& out) {
  flush(out);
}

}  // namespace cann_debug::plugins::ascend_console
