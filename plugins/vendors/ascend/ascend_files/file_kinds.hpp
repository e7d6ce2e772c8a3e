// The Ascend profiler files we read: how to recognise each (by name, by its first bytes) and open it.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "ascend_files/options.hpp"
#include "cann_debug/component.hpp"
#include "cann_debug/reader/item_source.hpp"

namespace cann_debug::plugins::ascend {

enum class AscendFileKind {
  kKernelDetails,
  kOpStatistic,
  kStepTrace,
  kCommunication,
  kCommunicationMatrix,
  kMemoryRecord,
  kOperatorMemory,
  kModuleMemory,
};

std::string_view to_string(AscendFileKind kind);
/// The RecordBatch schema of a kind's records: "ascend.<kind>/1" (e.g. "ascend.communication/1").
std::string record_schema(AscendFileKind kind);

/// By file name: kernel_details.csv, op_statistic.csv, [cluster_]step_trace_time.csv,
/// [cluster_]communication.json, [cluster_]communication_matrix.json, memory_record.csv,
/// operator_memory.csv, npu_module_mem.csv.
std::optional<AscendFileKind> kind_from_file_name(std::string_view name);

std::unique_ptr<readers::ItemSource> open_ascend_file(AscendFileKind kind, const std::string& path,
                                                      const AscendFileOptions& options);

/// Sniff scores (0-100) from a file's first bytes; the file name adds a little.
int sniff_kernel_details(const SniffInput& in);
int sniff_op_statistic(const SniffInput& in);
int sniff_step_trace(const SniffInput& in);
int sniff_communication(const SniffInput& in);
int sniff_communication_matrix(const SniffInput& in);
/// memory_record.csv, operator_memory.csv or npu_module_mem.csv, told apart by their headers.
int sniff_memory(const SniffInput& in);
/// Which of the three memory files a header is (nullopt: none of them).
std::optional<AscendFileKind> memory_kind_of(std::string_view head);

}  // namespace cann_debug::plugins::ascend
