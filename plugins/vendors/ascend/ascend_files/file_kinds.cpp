#include "ascend_files/file_kinds.hpp"

#include <fmt/format.h>

#include "ascend_files/communication.hpp"
#include "ascend_files/communication_matrix.hpp"
#include "ascend_files/kernel_details.hpp"
#include "ascend_files/memory.hpp"
#include "ascend_files/op_statistic.hpp"
#include "ascend_files/step_trace.hpp"
#include "cann_debug/reader/sniff_helpers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend {
namespace {

using readers::base_name;
using readers::csv_header;
using readers::has_columns;

int named(const SniffInput& in, std::string_view prefix, std::string_view ext, int score) {
  const std::string name = base_name(in.path);
  const bool match = name.ends_with(ext) &&
                     (name.starts_with(prefix) || name.starts_with(fmt::format("cluster_{}", prefix)));
  return match ? score + 3 : score;
}

// A JSON object document whose head mentions every one of `keys` (as quoted keys).
bool json_with_keys(std::string_view head, std::initializer_list<std::string_view> keys) {
  const auto first = head.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos || head[first] != '{') return false;
  if (!readers::looks_text(head)) return false;
  for (auto k : keys)
    if (head.find(fmt::format("\"{}\"", k)) == std::string_view::npos) return false;
  return true;
}

}  // namespace

std::string record_schema(AscendFileKind kind) {
  return "ascend." + std::string(to_string(kind)) + "/1";
}

std::string_view to_string(AscendFileKind kind) {
  switch (kind) {
    case AscendFileKind::kKernelDetails:
      return "kernel_details";
    case AscendFileKind::kOpStatistic:
      return "op_statistic";
    case AscendFileKind::kStepTrace:
      return "step_trace_time";
    case AscendFileKind::kCommunication:
      return "communication";
    case AscendFileKind::kCommunicationMatrix:
      return "communication_matrix";
    case AscendFileKind::kMemoryRecord:
      return "memory_record";
    case AscendFileKind::kOperatorMemory:
      return "operator_memory";
    case AscendFileKind::kModuleMemory:
      return "npu_module_mem";
  }
  return "unknown";
}

std::optional<AscendFileKind> kind_from_file_name(std::string_view name) {
  if (name.starts_with("cluster_")) name.remove_prefix(8);
  if (name == "kernel_details.csv") return AscendFileKind::kKernelDetails;
  if (name == "op_statistic.csv") return AscendFileKind::kOpStatistic;
  if (name == "step_trace_time.csv") return AscendFileKind::kStepTrace;
  if (name == "communication.json") return AscendFileKind::kCommunication;
  if (name == "communication_matrix.json") return AscendFileKind::kCommunicationMatrix;
  if (name == "memory_record.csv") return AscendFileKind::kMemoryRecord;
  if (name == "operator_memory.csv") return AscendFileKind::kOperatorMemory;
  if (name == "npu_module_mem.csv") return AscendFileKind::kModuleMemory;
  return std::nullopt;
}

std::unique_ptr<readers::ItemSource> open_ascend_file(AscendFileKind kind, const std::string& path,
                                                      const AscendFileOptions& options) {
  switch (kind) {
    case AscendFileKind::kKernelDetails:
      return open_kernel_details(path, options);
    case AscendFileKind::kOpStatistic:
      return open_op_statistic(path, options);
    case AscendFileKind::kStepTrace:
      return open_step_trace(path, options);
    case AscendFileKind::kCommunication:
      return open_communication(path, options);
    case AscendFileKind::kCommunicationMatrix:
      return open_communication_matrix(path, options);
    case AscendFileKind::kMemoryRecord:
      return open_memory_record(path, options);
    case AscendFileKind::kOperatorMemory:
      return open_operator_memory(path, options);
    case AscendFileKind::kModuleMemory:
      return open_module_memory(path, options);
  }
  return nullptr;
}

int sniff_kernel_details(const SniffInput& in) {
  const auto header = csv_header(in.head);
  if (!has_columns(header, {"Name", "Start Time(us)", "Duration(us)"})) return 0;
  const bool typical = has_columns(header, {"Accelerator Core"}) || has_columns(header, {"Task ID"}) ||
                       has_columns(header, {"Block Dim"}) || has_columns(header, {"Block Num"});
  return named(in, "kernel_details", ".csv", typical ? 92 : 80);
}

int sniff_op_statistic(const SniffInput& in) {
  if (!has_columns(csv_header(in.head), {"OP Type", "Count", "Total Time(us)"})) return 0;
  return named(in, "op_statistic", ".csv", 90);
}

int sniff_step_trace(const SniffInput& in) {
  if (!has_columns(csv_header(in.head), {"Step", "Computing", "Communication(Not Overlapped)"})) return 0;
  return named(in, "step_trace_time", ".csv", 90);
}

int sniff_communication(const SniffInput& in) {
  const bool time = json_with_keys(in.head, {"Communication Time Info"});
  const bool bandwidth = json_with_keys(in.head, {"Communication Bandwidth Info"});
  if (!time && !bandwidth) return 0;
  return named(in, "communication", ".json", 90);
}

int sniff_communication_matrix(const SniffInput& in) {
  if (!json_with_keys(in.head, {"Transport Type"})) return 0;
  if (!json_with_keys(in.head, {"Transit Size(MB)"}) && !json_with_keys(in.head, {"Bandwidth(GB/s)"}))
    return 0;
  if (json_with_keys(in.head, {"Communication Time Info"})) return 0;
  return named(in, "communication_matrix", ".json", 90);
}

std::optional<AscendFileKind> memory_kind_of(std::string_view head) {
  const auto header = csv_header(head);
  if (has_columns(header, {"Name", "Size(KB)", "Allocation Time(us)"}))
    return AscendFileKind::kOperatorMemory;
  if (!has_columns(header, {"Component", "Timestamp(us)", "Total Reserved(MB)"})) return std::nullopt;
  // memory_record has the allocator's totals; npu_module_mem only what each CANN module reserved.
  if (has_columns(header, {"Total Allocated(MB)"})) return AscendFileKind::kMemoryRecord;
  return AscendFileKind::kModuleMemory;
}

int sniff_memory(const SniffInput& in) {
  const auto kind = memory_kind_of(in.head);
  if (!kind) return 0;
  switch (*kind) {
    case AscendFileKind::kOperatorMemory:
      return named(in, "operator_memory", ".csv", 90);
    case AscendFileKind::kMemoryRecord:
      return named(in, "memory_record", ".csv", 90);
    default:
      return named(in, "npu_module_mem", ".csv", 88);
  }
}

}  // namespace cann_debug::plugins::ascend
