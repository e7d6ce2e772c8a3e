// A console capture: what a person or a script saved from a terminal while running npu-smi and hccn_tool.
//
//   Datetime: 2024-09-09 13:13:44.179645
//
//   /usr/local/Ascend/driver/tools/hccn_tool -i 0 -stat -g
//   packet statistics:
//   roce_rx_err_pkt_num:0
//   ...
//   [root@host ~]# npu-smi info -t usages -i 0
//   	NPU ID                         : 0
//   ...
//
// A line naming npu-smi or hccn_tool (with or without its path, after a shell prompt or not) starts a
// section parsed by the parser of that command (`npu-smi info` table, `info watch`, `info -t <type>`,
// hccn_tool); other commands' sections (cat, pip, lspci, ...) are skipped. Output without any command
// line (a file holding only a table, or watch rows) is recognised by its shape. "Datetime:" lines set
// the time of the points that follow.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ascend_console/console_line.hpp"
#include "ascend_console/hccn_tool.hpp"
#include "ascend_console/npu_smi_kv.hpp"
#include "ascend_console/npu_smi_table.hpp"
#include "ascend_console/npu_smi_watch.hpp"

namespace cann_debug::plugins::ascend_console {

struct CaptureOptions {
  std::int64_t utc_offset_s = 0;  // the capture's local time is this far ahead of UTC
  std::string node;
  TimestampNs default_timestamp = kNoTimestamp;  // before any Datetime line
};

class CaptureParser {
 public:
  CaptureParser(std::string path, CaptureOptions options);

  /// Throws ParseError on a malformed line of a recognised section.
  void feed(const Line& line, std::vector<MetricPoint>& out);
  /// Throws ParseError when the whole capture held no npu-smi or hccn_tool output at all.
  void finish(std::vector<MetricPoint>& out);

 private:
  enum class Kind { kNone, kTable, kKeyValue, kWatch, kHccn, kOther };
  bool command(const Line& line, std::vector<MetricPoint>& out);
  void start(Kind kind, std::vector<MetricPoint>& out);
  void detect(std::string_view text, std::vector<MetricPoint>& out);

  CaptureOptions options_;
  ConsoleContext ctx_;
  Kind kind_ = Kind::kNone;
  bool from_command_ = false;
  int sections_ = 0;
  std::unique_ptr<NpuSmiTableParser> table_;
  std::unique_ptr<NpuSmiKeyValueParser> kv_;
  std::unique_ptr<NpuSmiWatchParser> watch_;
  std::unique_ptr<HccnToolParser> hccn_;
};

}  // namespace cann_debug::plugins::ascend_console
