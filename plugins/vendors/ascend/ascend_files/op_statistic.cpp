#include "ascend_files/op_statistic.hpp"

#include <fmt/format.h>

namespace cann_debug::plugins::ascend {
namespace {

void finish_op_statistic_row(RowContext& row) {
  if (auto device = row.integer("device_id", "an integer device id");
      device && *device >= 0 && *device <= INT32_MAX)
    row.record.key.device = static_cast<std::int32_t>(*device);
  if (auto count = row.integer("count", "an integer count"); count && *count < 0)
    row.fail(fmt::format("expected a count >= 0 in '{}'", row.original("count")));
  if (auto total = row.scaled("total_time_us", 3, "a time in microseconds"))
    row.record.fields["total_time_ns"] = *total;
  else
    row.record.fields["total_time_ns"] = nullptr;
}

}  // namespace

CsvSchema op_statistic_schema() {
  CsvSchema s;
  s.file_kind = "op_statistic.csv";
  s.required = {"OP Type", "Count", "Total Time(us)"};
  s.string_columns = {"model_name", "op_type", "core_type"};
  s.id_columns = {"device_id", "model_id"};
  s.numeric_columns = {"count"};
  s.finish = finish_op_statistic_row;
  return s;
}

std::unique_ptr<readers::ItemSource> open_op_statistic(const std::string& path,
                                                       const AscendFileOptions& options) {
  return std::make_unique<CsvRecordSource>(path, op_statistic_schema(), options);
}

}  // namespace cann_debug::plugins::ascend
