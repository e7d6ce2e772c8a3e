#include "ascend_console/npu_smi_watch.hpp"

#include <fmt/format.h>

#include "ascend_console/npu_smi_table.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {

bool NpuSmiWatchParser::is_header(std::string_view text) {
  const auto t = readers::trim(text);
  return t.starts_with("NpuID") && t.find("(%)") != std::string_view::npos;
}

void NpuSmiWatchParser::feed(const Line& line, std::vector<MetricPoint>& out) {
  const auto t = readers::trim(line.text);
  if (t.empty()) return;
  if (is_header(t)) {
    columns_ = header_columns(t);
    return;
  }
  if (columns_.empty())
    fail(ctx_, line, "expected the watch header ('NpuID(Idx)  Pwr(W)  Temp(C) ...') before its rows");
  const auto words = readers::split_ws(t);
  if (words.size() != columns_.size())
    fail(ctx_, line,
         fmt::format("expected {} values as in the watch header, got {}", columns_.size(), words.size()));
  std::int32_t device = ctx_.device;
  std::int32_t chip = -1;
  std::vector<std::pair<std::size_t, double>> numbers;
  for (std::size_t i = 0; i < words.size(); ++i) {
    const std::string key = readers::snake_case(columns_[i]);
    if (key == "npu_id_idx" || key == "npu_id" || key == "chip_id_idx" || key == "chip_id") {
      auto v = readers::parse_int(words[i]);
      if (!v || *v < 0 || *v > INT32_MAX)
        fail(ctx_, line,
             fmt::format("expected an integer for '{}', got '{}'", readers::printable(columns_[i]),
                         readers::printable(words[i])));
      (key.starts_with("npu") ? device : chip) = static_cast<std::int32_t>(*v);
      continue;
    }
    double v = 0;
    const Value r = console_number(words[i], v);
    if (r == Value::kBad)
      fail(ctx_, line,
           fmt::format("expected a number for '{}', got '{}'", readers::printable(columns_[i]),
                       readers::printable(words[i])));
    if (r == Value::kNumber) numbers.emplace_back(i, v);
  }
  const int sample = samples_[{device, chip}]++;
  for (const auto& [i, v] : numbers) {
    const auto metric = npu_smi_metric(columns_[i]);
    if (!metric) continue;
    MetricPoint p = make_point(ctx_, *metric, v, columns_[i], device, chip);
    p.labels["sample"] = std::to_string(sample);
    out.push_back(std::move(p));
  }
}

}  // namespace cann_debug::plugins::ascend_console
