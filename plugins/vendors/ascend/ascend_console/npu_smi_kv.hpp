// The `key : value` blocks of `npu-smi info -t <type> -i <id>` (usages, common, power, temp, memory,
// health, board, ...), a line at a time:
//
//   	NPU ID                         : 0
//   	Chip Count                     : 1
//
//   	DDR Capacity(MB)               : 13553
//   	Aicore Usage Rate(%)           : 0
//   	Chip ID                        : 0
//
// "Chip ID" may come after the values it belongs to (-t usages on 910A/B, one group per chip) or before
// them (-t board -c N): both are handled. Keys without a metric (versions, ids) are skipped.
#pragma once

#include <string>
#include <vector>

#include "ascend_console/console_line.hpp"

namespace cann_debug::plugins::ascend_console {

class NpuSmiKeyValueParser {
 public:
  explicit NpuSmiKeyValueParser(const ConsoleContext& ctx) : ctx_(ctx) {}

  /// Whether a line is such a key : value line.
  static bool is_key_value(std::string_view text);

  /// Points of known keys (see metric_names.hpp) and npu.health (state, label health) from
  /// "Health Status". Throws ParseError when a key with a metric has a value that is not a number.
  void feed(const Line& line, std::vector<MetricPoint>& out);
  /// Hands out what is still held (values waiting for a trailing Chip ID).
  void finish(std::vector<MetricPoint>& out);

 private:
  void flush(std::vector<MetricPoint>& out);

  const ConsoleContext& ctx_;
  std::int32_t device_ = -1;
  std::int32_t chip_ = -1;
  bool chip_leads_ = false;  // "Chip ID" came before any value of the block
  bool seen_value_ = false;
  std::vector<MetricPoint> pending_;
  std::size_t group_start_ = 0;  // first pending point of the current chip group
};

}  // namespace cann_debug::plugins::ascend_console
