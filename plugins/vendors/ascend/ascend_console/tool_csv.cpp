#include "ascend_console/tool_csv.hpp"

#include <fmt/format.h>

#include "ascend_console/metric_names.hpp"
#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/parse_error.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {
namespace {

bool is_time(std::string_view n) {
  return n == "time" || n == "timestamp";
}
bool is_device(std::string_view n) {
  return n == "dev_id" || n == "npu_index" || n == "device" || n == "npu_id";
}
bool is_counter(std::string_view n) {
  return n.ends_with("_num") && (n.starts_with("roce_") || n.starts_with("mac_") || n.starts_with("nic_"));
}

}  // namespace

ToolCsvSource::ToolCsvSource(std::string path, std::size_t max_line_bytes, std::string node)
    : path_(std::move(path)), node_(std::move(node)) {
  readers::open_input(path_, file_);
  csv_ = std::make_unique<readers::CsvReader>(file_, path_, max_line_bytes);
}

void ToolCsvSource::read_header(const readers::CsvRow& row) {
  const auto header = readers::read_header(row, path_);
  bool has_time = false;
  for (const auto& h : header) {
    Column c;
    c.original = h.original;
    if (is_time(h.name)) {
      c.role = Column::Role::kTime;
      has_time = true;
    } else if (is_device(h.name)) {
      c.role = Column::Role::kDevice;
    } else if (h.name == "host_ip" || h.name == "node" || h.name == "hostname") {
      c.role = Column::Role::kNode;
    } else if (h.name == "report_time") {
      c.role = Column::Role::kIgnored;
    } else {
      c.role = Column::Role::kMetric;
      MetricName m;
      if (auto known = npu_smi_metric(h.original))
        m = *known;
      else if (h.name.ends_with("_num") || h.name.ends_with("_cnt"))
        m = hccn_counter_metric(h.name);
      else
        m = {fmt::format("npu.{}", h.name), "", 1, {}};
      c.name = m.name;
      c.unit = m.unit;
      c.scale = m.scale;
      c.labels = m.labels;
    }
    columns_.push_back(std::move(c));
  }
  if (!has_time)
    readers::fail_line(
        path_, row.line, row.offset,
        "expected a 'time' or 'timestamp' column (Unix seconds) in the header of a sampled series");
}

bool ToolCsvSource::next(readers::Items& out, std::size_t max_items) {
  readers::CsvRow row;
  if (!header_read_) {
    header_read_ = true;
    if (!csv_->next(row)) return false;
    read_header(row);
  }
  std::size_t rows = 0;
  while (rows < max_items) {
    if (!csv_->next(row)) {
      ragged_.finish(path_, out.warnings);
      return false;
    }
    ++rows;
    ragged_.fit(row, columns_.size(), path_, out.warnings);  // missing cells: absent readings
    CorrelationKey key;
    std::string node = node_;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const auto t = readers::trim(row.cells[i]);
      const auto& c = columns_[i];
      if (c.role == Column::Role::kTime) {
        auto ns = readers::decimal_scaled(t, 9);
        if (!ns)
          readers::fail_line(path_, row.line, row.offset,
                             fmt::format("expected Unix seconds in '{}', got '{}'",
                                         readers::printable(c.original), readers::printable(t)));
        key.timestamp_ns = *ns;
      } else if (c.role == Column::Role::kDevice) {
        auto d = readers::parse_int(t);
        if (!d || *d < 0 || *d > INT32_MAX)
          readers::fail_line(path_, row.line, row.offset,
                             fmt::format("expected a device number in '{}', got '{}'",
                                         readers::printable(c.original), readers::printable(t)));
        key.device = static_cast<std::int32_t>(*d);
      } else if (c.role == Column::Role::kNode && t != "host_ip" && !t.empty() && node_.empty()) {
        node = std::string(t);
      }
    }
    if (!node.empty()) key.node_id = node;
    for (std::size_t i = 0; i < columns_.size(); ++i) {
      const auto& c = columns_[i];
      if (c.role != Column::Role::kMetric) continue;
      const auto t = readers::trim(row.cells[i]);
      if (readers::is_na(t)) continue;
      auto v = readers::parse_double(t);
      if (!v)
        readers::fail_line(path_, row.line, row.offset,
                           fmt::format("expected a number in '{}' (column {}), got '{}'",
                                       readers::printable(c.original), i + 1, readers::printable(t)));
      MetricPoint p;
      p.name = c.name;
      p.unit = c.unit;
      p.value = *v * c.scale;
      p.key = key;
      p.labels = c.labels;
      if (key.device >= 0) p.labels["device"] = std::to_string(key.device);
      if (!node.empty()) p.labels["node"] = node;
      p.labels["source_name"] = c.original;
      out.metrics.push_back(std::move(p));
    }
  }
  return true;
}

int sniff_tool_csv(const SniffInput& in) {
  const auto header = readers::csv_header(in.head);
  if (header.empty()) return 0;
  bool time = false, device = false;
  int counters = 0, npu = 0;
  for (const auto& h : header) {
    const auto n = readers::snake_case(h);
    time = time || is_time(n);
    device = device || is_device(n);
    counters += is_counter(n) ? 1 : 0;
    npu += (n == "power" || n == "freq" || n == "temp") ? 1 : 0;
  }
  if (!time) return 0;
  if (counters >= 3) return 90;
  if (device && npu >= 1) return 90;
  return 0;
}

}  // namespace cann_debug::plugins::ascend_console
