#include "ascend_files/step_trace.hpp"

#include <fmt/format.h>

#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend {
namespace {

// Time columns (canonical name) and the metric each becomes.
constexpr std::pair<std::string_view, std::string_view> kTimeColumns[] = {
    {"computing", "step.computing_time"},
    {"communication_not_overlapped", "step.communication_not_overlapped_time"},
    {"overlapped", "step.overlapped_time"},
    {"communication", "step.communication_time"},
    {"free", "step.free_time"},
    {"stage", "step.stage_time"},
    {"bubble", "step.bubble_time"},
    {"communication_not_overlapped_and_exclude_receive",
     "step.communication_not_overlapped_exclude_receive_time"},
    {"preparing", "step.preparing_time"},
};

void finish_step_trace_row(RowContext& row) {
  auto& key = row.record.key;
  if (auto step = row.integer("step", "an integer step")) {
    if (*step < 0) row.fail(fmt::format("expected a step >= 0 in '{}'", row.original("step")));
    key.step_id = *step;
  }
  if (auto device = row.integer("device_id", "an integer device id");
      device && *device >= 0 && *device <= INT32_MAX)
    key.device = static_cast<std::int32_t>(*device);

  Labels labels;
  const std::string_view type = row.text("type");
  if (row.has("type")) {
    labels["type"] = std::string(type);
    if (readers::iequals(type, "rank")) {
      auto rank = row.integer("index", "a rank id (Type is 'rank')");
      if (!rank || *rank < 0 || *rank > INT32_MAX)
        row.fail("expected a rank id >= 0 in 'Index' (Type is 'rank')");
      key.rank = static_cast<std::int32_t>(*rank);
    } else if (readers::iequals(type, "stage")) {
      labels["stage"] = std::string(row.text("index"));
      key.rank = -1;  // a stage row is the max over the ranks of a pipeline stage, not one rank
    }
  }
  for (const char* axis : {"dp_index", "pp_index", "tp_index"})
    if (row.has(axis) && !row.text(axis).empty()) labels[axis] = std::string(row.text(axis));
  if (key.device >= 0) labels["device"] = std::to_string(key.device);

  for (const auto& [column, metric] : kTimeColumns) {
    if (!row.has(column)) continue;
    auto ns = row.scaled(column, 3, "a time in microseconds");
    if (!ns) continue;
    MetricPoint p;
    p.name = std::string(metric);
    p.unit = "ns";
    p.value = static_cast<double>(*ns);
    p.key = key;
    p.labels = labels;
    p.labels["source_name"] = row.original(column);
    add_common_labels(p, row.options);
    row.metrics.push_back(std::move(p));
  }
}

}  // namespace

CsvSchema step_trace_schema() {
  CsvSchema s;
  s.file_kind = "step_trace_time.csv";
  s.required = {"Step", "Computing", "Communication(Not Overlapped)"};
  s.string_columns = {"type"};
  s.id_columns = {"device_id"};
  s.numeric_columns = {"computing",  "communication_not_overlapped",
                       "overlapped", "communication",
                       "free",       "stage",
                       "bubble",     "communication_not_overlapped_and_exclude_receive",
                       "preparing"};
  s.finish = finish_step_trace_row;
  return s;
}

std::unique_ptr<readers::ItemSource> open_step_trace(const std::string& path,
                                                     const AscendFileOptions& options) {
  return std::make_unique<CsvRecordSource>(path, step_trace_schema(), options);
}

}  // namespace cann_debug::plugins::ascend
