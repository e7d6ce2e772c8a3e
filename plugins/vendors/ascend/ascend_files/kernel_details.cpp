#include "ascend_files/kernel_details.hpp"

#include <fmt/format.h>

namespace cann_debug::plugins::ascend {
namespace {

void finish(RowContext& row) {
  auto& key = row.record.key;
  auto& f = row.record.fields;
  if (auto step = row.integer("step_id", "an integer step id")) {
    if (*step < 0) row.fail(fmt::format("expected a step id >= 0 in '{}'", row.original("step_id")));
    key.step_id = *step;
  }
  if (auto device = row.integer("device_id", "an integer device id");
      device && *device >= 0 && *device <= INT32_MAX)
    key.device = static_cast<std::int32_t>(*device);
  if (auto start = row.scaled("start_time_us", 3, "an epoch time in microseconds (decimal)")) {
    key.timestamp_ns = *start;
    f["start_ns"] = *start;
  } else {
    f["start_ns"] = nullptr;
  }
  if (auto duration = row.scaled("duration_us", 3, "a duration in microseconds"))
    f["duration_ns"] = *duration;
  else
    f["duration_ns"] = nullptr;
}

}  // namespace

CsvSchema kernel_details_schema() {
  CsvSchema s;
  s.file_kind = "kernel_details.csv";
  s.required = {"Name", "Start Time(us)", "Duration(us)"};
  s.aliases = {{"block_dim", "block_num"}, {"mix_block_dim", "mix_block_num"}};
  s.string_columns = {"name",
                      "type",
                      "accelerator_core",
                      "op_state",
                      "hf32_eligible",
                      "input_data_types",
                      "input_formats",
                      "output_data_types",
                      "output_formats",
                      "task_type"};
  s.shape_columns = {"input_shapes", "output_shapes"};
  s.id_columns = {"step_id",   "device_id",  "model_id", "task_id",
                  "stream_id", "context_id", "batch_id", "subtask_id"};
  s.numeric_columns = {"block_num", "mix_block_num"};
  s.finish = finish;
  return s;
}

std::unique_ptr<readers::ItemSource> open_kernel_details(const std::string& path,
                                                         const AscendFileOptions& options) {
  return std::make_unique<CsvRecordSource>(path, kernel_details_schema(), options);
}

}  // namespace cann_debug::plugins::ascend
