// The memory files of a torch_npu profile (profile_memory=True), in ASCEND_PROFILER_OUTPUT/:
//
//   memory_record.csv     Component (PTA, GE, PTA+GE, APP, WORKSPACE), Timestamp(us), Total Allocated(MB),
//                         Total Reserved(MB), [Total Active(MB)], [Stream Ptr], Device Type (NPU:<id>)
//   operator_memory.csv   Name, Size(KB), Allocation Time(us), Release Time(us), [Active Release Time(us)],
//                         Duration(us), [Active Duration(us)], Allocation/Release Total Allocated, Reserved,
//                         [Active] (MB), [Stream Ptr], Device Type. A negative Size is the release of a block
//                         allocated before the window; an empty Release Time, a block freed after it.
//   npu_module_mem.csv    Device_id, Component (CANN module: SLOG, IDEDD, APP, ...), Timestamp(us),
//                         Total Reserved(MB) (-1: only a release was seen), Device
#pragma once

#include <memory>
#include <string>

#include "ascend_files/csv_record_source.hpp"

namespace cann_debug::plugins::ascend {

/// Records: one per row. Metrics: npu.memory_allocated / npu.memory_reserved / npu.memory_active in bytes
/// at the row's timestamp, labels component, device, rank.
CsvSchema memory_record_schema();

/// Records: one per row with size_bytes, and allocation/release times in ns (key timestamp = allocation).
/// No metrics: a long profile has millions of rows, and the totals are memory_record's series.
CsvSchema operator_memory_schema();

/// Records: one per row. Metrics: npu.module_memory_reserved in bytes, labels component (the module),
/// device, rank; a -1 row (release only) has no point.
CsvSchema module_memory_schema();

std::unique_ptr<readers::ItemSource> open_memory_record(const std::string& path,
                                                        const AscendFileOptions& options);
std::unique_ptr<readers::ItemSource> open_operator_memory(const std::string& path,
                                                          const AscendFileOptions& options);
std::unique_ptr<readers::ItemSource> open_module_memory(const std::string& path,
                                                        const AscendFileOptions& options);

}  // namespace cann_debug::plugins::ascend
