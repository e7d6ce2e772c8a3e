#include "ascend_files/memory.hpp"

#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend {
namespace {

constexpr double kBytesPerMicroMb = 1048576.0 / 1e6;  // scaled(..., 6) gives millionths of a MiB

// "NPU:3" -> 3 (the profiler's Device Type / Device cells); nullopt for anything else (e.g. "CPU").
std::optional<std::int32_t> npu_index(std::string_view text) {
  if (text.size() < 5 || !readers::iequals(text.substr(0, 4), "npu:")) return std::nullopt;
  auto id = readers::parse_int(text.substr(4));
  if (!id || *id < 0 || *id > INT32_MAX) return std::nullopt;
  return static_cast<std::int32_t>(*id);
}

// The device of a row: Device_id when the file has it, else the NPU:<id> of `column`.
void set_device(RowContext& row, std::string_view column) {
  auto& key = row.record.key;
  if (row.has("device_id")) {
    if (auto id = row.integer("device_id", "an integer device id"); id && *id >= 0 && *id <= INT32_MAX)
      key.device = static_cast<std::int32_t>(*id);
    return;
  }
  const std::string_view text = row.text(column);
  if (text.empty()) return;
  if (auto id = npu_index(text)) {
    key.device = *id;
  } else if (!readers::iequals(text, "cpu")) {
    row.fail(fmt::format("expected NPU:<id> or CPU in '{}', got '{}'", row.original(column),
                         readers::printable(text)));
  }
}

// A time column in µs -> ns; absent / N/A -> nullopt; a negative time is an error.
std::optional<std::int64_t> time_ns(RowContext& row, std::string_view column) {
  if (!row.has(column)) return std::nullopt;
  auto ns = row.scaled(column, 3, "an epoch time in microseconds");
  if (ns && *ns < 0) row.fail(fmt::format("expected a time >= 0 in '{}'", row.original(column)));
  return ns;
}

// A MB column in bytes (absent / N/A -> nullopt).
std::optional<double> mb_bytes(RowContext& row, std::string_view column) {
  if (!row.has(column)) return std::nullopt;
  auto micro_mb = row.scaled(column, 6, "a size in MB");
  if (!micro_mb) return std::nullopt;
  return std::round(static_cast<double>(*micro_mb) * kBytesPerMicroMb);  // to the byte
}

void add_point(RowContext& row, std::string_view metric, double bytes, const Labels& labels,
               std::string_view column) {
  MetricPoint p;
  p.name = std::string(metric);
  p.unit = "bytes";
  p.value = bytes;
  p.key = row.record.key;
  p.labels = labels;
  p.labels["source_name"] = row.original(column);
  add_common_labels(p, row.options);
  row.metrics.push_back(std::move(p));
}

Labels point_labels(const RowContext& row) {
  Labels labels;
  labels["component"] = std::string(row.text("component"));
  if (row.record.key.device >= 0) labels["device"] = std::to_string(row.record.key.device);
  return labels;
}

std::string_view need_component(RowContext& row) {
  const std::string_view component = row.text("component");
  if (component.empty() && row.has("component"))
    row.fail(fmt::format("expected a component name in '{}'", row.original("component")));
  return component;
}

void finish_memory_record(RowContext& row) {
  need_component(row);
  set_device(row, "device_type");
  auto ts = time_ns(row, "timestamp_us");
  if (ts) row.record.key.timestamp_ns = *ts;
  const Labels labels = point_labels(row);
  constexpr std::pair<std::string_view, std::string_view> kTotals[] = {
      {"total_allocated_mb", "npu.memory_allocated"},
      {"total_reserved_mb", "npu.memory_reserved"},
      {"total_active_mb", "npu.memory_active"},
  };
  for (const auto& [column, metric] : kTotals) {
    auto bytes = mb_bytes(row, column);
    if (!bytes) continue;
    if (*bytes < 0) row.fail(fmt::format("expected a size >= 0 MB in '{}'", row.original(column)));
    if (ts) add_point(row, metric, *bytes, labels, column);
  }
}

void finish_operator_memory(RowContext& row) {
  if (row.text("name").empty())
    row.fail(fmt::format("expected an operator name in '{}'", row.original("name")));
  set_device(row, "device_type");
  auto& fields = row.record.fields;
  if (auto kb = row.scaled("size_kb", 3, "a size in KB")) {  // thousandths of a KB
    if (*kb > std::numeric_limits<std::int64_t>::max() / 1024 ||
        *kb < std::numeric_limits<std::int64_t>::min() / 1024)
      row.fail(
          fmt::format("expected a size in KB in '{}', got one beyond 2^63 bytes", row.original("size_kb")));
    fields["size_bytes"] = *kb * 1024 / 1000;  // exact: Size(KB) has at most three decimals
  }
  auto allocated = time_ns(row, "allocation_time_us");
  auto released = time_ns(row, "release_time_us");
  if (allocated) {
    row.record.key.timestamp_ns = *allocated;
    fields["allocation_time_ns"] = *allocated;
  }
  if (released) fields["release_time_ns"] = *released;
  if (auto active = time_ns(row, "active_release_time_us")) fields["active_release_time_ns"] = *active;
  if (allocated && released && *released < *allocated)
    row.fail(fmt::format("expected '{}' at or after '{}'", row.original("release_time_us"),
                         row.original("allocation_time_us")));
}

void finish_module_memory(RowContext& row) {
  need_component(row);
  set_device(row, "device");
  auto ts = time_ns(row, "timestamp_us");
  if (ts) row.record.key.timestamp_ns = *ts;
  auto bytes = mb_bytes(row, "total_reserved_mb");
  if (!bytes) return;
  // -1 is the profiler's "only a release of this module was seen"; any other negative size is wrong.
  if (*bytes < 0 && row.text("total_reserved_mb") != "-1" && row.text("total_reserved_mb") != "-1.0")
    row.fail(fmt::format("expected a size >= 0 MB (or -1) in '{}'", row.original("total_reserved_mb")));
  if (*bytes >= 0 && ts)
    add_point(row, "npu.module_memory_reserved", *bytes, point_labels(row), "total_reserved_mb");
}

CsvSchema base(std::string file_kind, std::vector<std::string> required) {
  CsvSchema s;
  s.file_kind = std::move(file_kind);
  s.required = std::move(required);
  s.string_columns = {"component", "name", "device_type", "device", "stream_ptr"};
  s.id_columns = {"device_id"};
  return s;
}

}  // namespace

CsvSchema memory_record_schema() {
  CsvSchema s = base("memory_record.csv", {"Component", "Timestamp(us)", "Total Reserved(MB)"});
  s.numeric_columns = {"total_allocated_mb", "total_reserved_mb", "total_active_mb"};
  s.finish = finish_memory_record;
  return s;
}

CsvSchema operator_memory_schema() {
  CsvSchema s = base("operator_memory.csv", {"Name", "Size(KB)", "Allocation Time(us)"});
  s.numeric_columns = {"size_kb",
                       "allocation_total_allocated_mb",
                       "allocation_total_reserved_mb",
                       "allocation_total_active_mb",
                       "release_total_allocated_mb",
                       "release_total_reserved_mb",
                       "release_total_active_mb"};
  s.finish = finish_operator_memory;
  return s;
}

CsvSchema module_memory_schema() {
  CsvSchema s = base("npu_module_mem.csv", {"Component", "Timestamp(us)", "Total Reserved(MB)"});
  s.numeric_columns = {"total_reserved_mb"};
  s.finish = finish_module_memory;
  return s;
}

std::unique_ptr<readers::ItemSource> open_memory_record(const std::string& path,
                                                        const AscendFileOptions& options) {
  return std::make_unique<CsvRecordSource>(path, memory_record_schema(), options);
}

std::unique_ptr<readers::ItemSource> open_operator_memory(const std::string& path,
                                                          const AscendFileOptions& options) {
  return std::make_unique<CsvRecordSource>(path, operator_memory_schema(), options);
}

std::unique_ptr<readers::ItemSource> open_module_memory(const std::string& path,
                                                        const AscendFileOptions& options) {
  return std::make_unique<CsvRecordSource>(path, module_memory_schema(), options);
}

}  // namespace cann_debug::plugins::ascend
