// kernel_details.csv: one row per device task (Ascend PyTorch profiler, ASCEND_PROFILER_OUTPUT/).
//
// Columns vary by version: `Step Id` / `Step ID` (absent without a schedule), `Block Dim` / `Block Num`,
// `Mix Block Dim` / `Mix Block Num`, optional `Device_id`, `OP State`, `HF32 Eligible`, aic_metrics
// columns. `Start Time(us)` is an absolute epoch time in microseconds written as decimal text (sometimes
// with a trailing tab inside the quotes): it is converted to ns exactly, without going through a double.
#pragma once

#include <memory>
#include <string>

#include "ascend_files/csv_record_source.hpp"

namespace cann_debug::plugins::ascend {

/// Record fields: every column in snake_case (block_dim -> block_num, mix_block_dim -> mix_block_num), typed;
/// N/A and 4294967295 (in id columns) -> null; shapes without their literal quotes; plus start_ns and
/// duration_ns (exact integers). Keys: timestamp (start), step_id (Step Id), device (Device_id), rank
/// (option).
CsvSchema kernel_details_schema();

std::unique_ptr<readers::ItemSource> open_kernel_details(const std::string& path,
                                                         const AscendFileOptions& options);

}  // namespace cann_debug::plugins::ascend
