#include "ascend_console/npu_smi_table.hpp"

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {
namespace {

using readers::printable;
using readers::split_ws;
using readers::trim;

// A cell's values: single words, or "used / total" pairs (also written "used/total").
struct CellValue {
  std::string first;
  std::string second;
  bool pair = false;
};

std::vector<CellValue> cell_values(std::string_view cell) {
  const auto words = split_ws(cell);
  std::vector<CellValue> out;
  for (std::size_t i = 0; i < words.size(); ++i) {
    if (i + 2 < words.size() && words[i + 1] == "/") {
      out.push_back({std::string(words[i]), std::string(words[i + 2]), true});
      i += 2;
    } else if (auto slash = words[i].find('/'); slash != std::string_view::npos && slash > 0 &&
                                                slash + 1 < words[i].size() && words[i] != "N/A") {
      out.push_back({std::string(words[i].substr(0, slash)), std::string(words[i].substr(slash + 1)), true});
    } else {
      out.push_back({std::string(words[i]), {}, false});
    }
  }
  return out;
}

std::vector<std::string_view> cells_of(std::string_view t) {
  t = trim(t);
  if (t.front() == '|') t.remove_prefix(1);
  if (!t.empty() && t.back() == '|') t.remove_suffix(1);
  auto cells = readers::split(t, '|');
  for (auto& c : cells) c = trim(c);
  return cells;
}

}  // namespace

std::vector<std::string> header_columns(std::string_view cell) {
  std::vector<std::string> columns;
  std::string current;
  for (auto word : split_ws(cell)) {
    if (!current.empty()) current += ' ';
    current += word;
    if (word.ends_with(")")) {
      columns.push_back(std::move(current));
      current.clear();
    }
  }
  if (!current.empty()) columns.push_back(std::move(current));
  return columns;
}

bool NpuSmiTableParser::starts_table(std::string_view text) {
  const auto t = trim(text);
  if (t.starts_with("+---") || t.starts_with("+===")) return true;
  if (!t.starts_with("|")) return false;
  const auto cells = cells_of(t);
  return cells.size() >= 3 && cells[0].starts_with("NPU") &&
         (readers::icontains(cells[1], "Health") || readers::icontains(cells[1], "Process"));
}

void NpuSmiTableParser::feed(const Line& line, std::vector<MetricPoint>& out) {
  const std::string_view t = trim(line.text);
  if (t.empty()) return;
  if (t.front() == '+') {
    block_row_ = 0;
    return;
  }
  if (t.front() != '|') return;  // text around the table
  const auto cells = cells_of(t);
  if (cells.size() == 1) return;  // "npu-smi 24.1.0  Version: 24.1.0", "No running processes found in NPU 0"

  if (cells.size() >= 3 && readers::icontains(cells[1], "Process id")) {
    processes_ = true;
    return;
  }
  if (cells.size() == 3 && cells[0].starts_with("NPU") && readers::icontains(cells[1], "Health")) {
    npu_columns_ = header_columns(cells[2]);
    processes_ = false;
    return;
  }
  if (cells.size() == 3 && cells[0].starts_with("Chip") && readers::icontains(cells[1], "Bus-Id")) {
    chip_columns_ = header_columns(cells[2]);
    return;
  }

  if (processes_) {
    if (cells.size() != 4)
      fail(ctx_, line,
           fmt::format(
               "expected 4 cells (NPU Chip | Process id | Process name | Process memory(MB)) in a process "
               "row, got {}",
               cells.size()));
    const auto ids = split_ws(cells[0]);
    auto npu = ids.empty() ? std::nullopt : readers::parse_int(ids[0]);
    auto chip = ids.size() > 1 ? readers::parse_int(ids[1]) : std::nullopt;
    if (!npu)
      fail(ctx_, line, fmt::format("expected the NPU id in the first cell, got '{}'", printable(cells[0])));
    double mb = 0;
    const Value v = console_number(cells[3], mb);
    if (v == Value::kBad)
      fail(ctx_, line,
           fmt::format("expected a number for 'Process memory(MB)', got '{}'", printable(cells[3])));
    if (v == Value::kNotAvailable) return;
    MetricPoint p =
        make_point(ctx_, {"npu.process.memory.used", "bytes", 1024.0 * 1024.0, {}}, mb, "Process memory(MB)",
                   static_cast<std::int32_t>(*npu), chip ? static_cast<std::int32_t>(*chip) : -1);
    p.labels["pid"] = std::string(cells[1]);
    p.labels["process_name"] = std::string(cells[2]);
    out.push_back(std::move(p));
    return;
  }

  if (cells.size() != 3)
    fail(ctx_, line, fmt::format("expected 3 cells separated by '|' in a device row, got {}", cells.size()));
  if (npu_columns_.empty())
    fail(ctx_, line,
         "expected the table header ('| NPU  Name | Health | Power(W) ...') before the device rows");
  ++block_row_;
  const auto ids = split_ws(cells[0]);
  if (block_row_ % 2 == 1) {  // the NPU row
    auto id = ids.empty() ? std::nullopt : readers::parse_int(ids[0]);
    if (!id || *id < 0 || *id > INT32_MAX)
      fail(ctx_, line,
           fmt::format("expected the NPU id and name in the first cell, got '{}'", printable(cells[0])));
    npu_ = static_cast<std::int32_t>(*id);
    npu_name_.clear();
    for (std::size_t i = 1; i < ids.size(); ++i) npu_name_ += (i > 1 ? " " : "") + std::string(ids[i]);
    Labels labels;
    if (!npu_name_.empty()) labels["npu_name"] = npu_name_;
    if (!cells[1].empty()) {
      MetricPoint h =
          make_point(ctx_, {"npu.health", "state", 1, {}}, health_state(cells[1]), "Health", npu_);
      h.labels["health"] = std::string(cells[1]);
      h.labels["line"] = std::to_string(line.number);
      h.labels.insert(labels.begin(), labels.end());
      out.push_back(std::move(h));
    }
    device_values(line, cells[2], npu_columns_, -1, labels, out);
  } else {  // the chip row
    if (chip_columns_.empty())
      fail(ctx_, line, "expected the chip header ('| Chip | Bus-Id | AICore(%) ...') before the chip rows");
    auto chip = ids.empty() ? std::nullopt : readers::parse_int(ids[0]);
    if (!chip || *chip < 0 || *chip > INT32_MAX)
      fail(ctx_, line, fmt::format("expected the chip id in the first cell, got '{}'", printable(cells[0])));
    Labels labels;
    if (!npu_name_.empty()) labels["npu_name"] = npu_name_;
    if (!cells[1].empty()) labels["bus_id"] = std::string(cells[1]);
    device_values(line, cells[2], chip_columns_, static_cast<std::int32_t>(*chip), labels, out);
  }
}

void NpuSmiTableParser::device_values(const Line& line, std::string_view cell,
                                      const std::vector<std::string>& columns, std::int32_t chip,
                                      const Labels& labels, std::vector<MetricPoint>& out) const {
  const auto values = cell_values(cell);
  if (values.size() != columns.size()) {
    std::string names;
    for (const auto& c : columns) names += (names.empty() ? "" : " ") + c;
    fail(ctx_, line,
         fmt::format("expected {} values under '{}', got {}: '{}'", columns.size(), names, values.size(),
                     printable(cell)));
  }
  auto number = [&](const std::string& text, const std::string& column, double& v) {
    const Value r = console_number(text, v);
    if (r == Value::kBad)
      fail(ctx_, line,
           fmt::format("expected a number for '{}', got '{}'", printable(column), printable(text)));
    return r == Value::kNumber;
  };
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const auto& column = columns[i];
    const auto& value = values[i];
    double v = 0;
    if (auto pair = npu_smi_pair_metric(column)) {
      if (!value.pair && number(value.first, column, v))
        fail(ctx_, line,
             fmt::format("expected 'used / total' for '{}', got '{}'", printable(column),
                         printable(value.first)));
      if (value.pair && number(value.first, column, v)) {
        out.push_back(make_point(ctx_, pair->first, v, column, npu_, chip));
        out.back().labels.insert(labels.begin(), labels.end());
      }
      if (value.pair && number(value.second, column, v)) {
        out.push_back(make_point(ctx_, pair->second, v, column, npu_, chip));
        out.back().labels.insert(labels.begin(), labels.end());
      }
    } else if (auto m = npu_smi_metric(column)) {
      if (value.pair)
        fail(ctx_, line, fmt::format("expected one number for '{}', got a pair", printable(column)));
      if (number(value.first, column, v)) {
        out.push_back(make_point(ctx_, *m, v, column, npu_, chip));
        out.back().labels.insert(labels.begin(), labels.end());
      }
    }
  }
}

}  // namespace cann_debug::plugins::ascend_console
