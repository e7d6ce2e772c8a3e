// `npu-smi info watch` output: a header, then one row per device and sample.
//
//   NpuID(Idx)  ChipId(Idx) Pwr(W)      Temp(C)     AI Core(%)  AI Cpu(%)   Ctrl Cpu(%) Memory(%)   Memory
//   BW(%) 0           0           161.7       43          17          0           5           95          14
//
// Newer drivers drop ChipId and add NPU Util(%), AI Cube(%): the header decides.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "ascend_console/console_line.hpp"

namespace cann_debug::plugins::ascend_console {

class NpuSmiWatchParser {
 public:
  explicit NpuSmiWatchParser(const ConsoleContext& ctx) : ctx_(ctx) {}

  static bool is_header(std::string_view text);

  /// npu.power (watts), npu.temperature (celsius), npu.aicore/aicpu/ctrlcpu/aicube/aivector.utilization,
  /// npu.memory.utilization, npu.memory.bandwidth_utilization, npu.utilization (ratio); labels device, chip,
  /// sample (0, 1, ... per device: watch rows carry no time of their own).
  void feed(const Line& line, std::vector<MetricPoint>& out);

 private:
  const ConsoleContext& ctx_;
  std::vector<std::string> columns_;
  std::map<std::pair<std::int32_t, std::int32_t>, int> samples_;
};

}  // namespace cann_debug::plugins::ascend_console
