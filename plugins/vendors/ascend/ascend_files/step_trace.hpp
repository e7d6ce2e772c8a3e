// step_trace_time.csv (per rank) and cluster_step_trace_time.csv (msprof-analyze cluster_analyse).
//
// Per rank:  Device_id, Step, Computing, Communication(Not Overlapped), Overlapped, Communication, Free,
//            Stage, Bubble, Communication(Not Overlapped and Exclude Receive), Preparing   (µs)
// Cluster:   Step, Type (rank | stage), Index (rank id | rank tuple "(0, 1, ...)"), the same times,
//            [DP Index, PP Index, TP Index]. `Step` is empty when the profile had no schedule.
#pragma once

#include <memory>
#include <string>

#include "ascend_files/csv_record_source.hpp"

namespace cann_debug::plugins::ascend {

/// Records: one per row, columns in snake_case, typed. Metrics: one point per known time column,
/// step.<column>_time in ns (e.g. step.computing_time, step.communication_not_overlapped_time,
/// step.free_time), labels rank (or stage = the rank tuple), device, type, dp/pp/tp_index, source_name.
CsvSchema step_trace_schema();

std::unique_ptr<readers::ItemSource> open_step_trace(const std::string& path,
                                                     const AscendFileOptions& options);

}  // namespace cann_debug::plugins::ascend
