// The table `npu-smi info` prints, a line at a time:
//
//   | NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
//   | Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
//   +===========================+===============+====================================================+
//   | 0     910B3               | OK            | 98.2        52                0    / 0             |
//   | 0                         | 0000:C1:00.0  | 0           0    / 0          3434 / 65536         |
//   ...
//   | NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
//   | 0       0                 | 123456        | python                   | 3000                    |
//
// Between two separators come an NPU row and its chip row (Ascend 310P: "Chip Device"; A3: one pair per
// chip, the second chip's Power "-"). The columns of the third cell are read from the headers, so the
// 310/310P (no HBM), 910 and 950 (NPU Util(%)) layouts all work.
#pragma once

#include <string>
#include <vector>

#include "ascend_console/console_line.hpp"

namespace cann_debug::plugins::ascend_console {

class NpuSmiTableParser {
 public:
  explicit NpuSmiTableParser(const ConsoleContext& ctx) : ctx_(ctx) {}

  /// Whether a line starts such a table (a border or the NPU header), for captures without commands.
  static bool starts_table(std::string_view text);

  /// Emits npu.power (watts), npu.temperature (celsius), npu.health (state), npu.ddr.hugepages_used/_total
  /// (count), npu.aicore.utilization (ratio), npu.memory.used/capacity and npu.hbm.used/capacity (bytes),
  /// npu.utilization (ratio), npu.process.memory.used (bytes, labels pid, process_name); labels device (NPU
  /// id), chip, npu_name, bus_id. Throws ParseError on a malformed row.
  void feed(const Line& line, std::vector<MetricPoint>& out);

 private:
  void device_values(const Line& line, std::string_view cell, const std::vector<std::string>& columns,
                     std::int32_t chip, const Labels& labels, std::vector<MetricPoint>& out) const;

  const ConsoleContext& ctx_;
  std::vector<std::string> npu_columns_;   // third cell of the NPU header
  std::vector<std::string> chip_columns_;  // third cell of the chip header
  bool processes_ = false;
  int block_row_ = 0;
  std::int32_t npu_ = -1;
  std::string npu_name_;
};

/// The columns of a header cell: words joined up to one that ends with ')' ("AI Core(%)", "Power(W)").
std::vector<std::string> header_columns(std::string_view cell);

}  // namespace cann_debug::plugins::ascend_console
