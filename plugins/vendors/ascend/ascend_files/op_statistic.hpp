// op_statistic.csv: per operator type, count and time (µs) on the device.
// Columns: [Device_id,] [Model Name,] OP Type, Core Type, Count, Total Time(us), Avg/Min/Max Time(us),
// Ratio(%).
#pragma once

#include <memory>
#include <string>

#include "ascend_files/csv_record_source.hpp"

namespace cann_debug::plugins::ascend {

/// Record fields: columns in snake_case, typed, plus total_time_ns (exact). Keys: device, rank (option).
CsvSchema op_statistic_schema();

std::unique_ptr<readers::ItemSource> open_op_statistic(const std::string& path,
                                                       const AscendFileOptions& options);

}  // namespace cann_debug::plugins::ascend
