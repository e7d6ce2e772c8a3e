// The command-line fallbacks of the Ascend samplers, for machines without libdcmi.so: npu-smi and
// hccn_tool run without a shell and with a deadline, their output parsed by the ascend_console parsers
// (the same ones that read saved captures), so both paths give the same metric names.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "ascend_console/console_line.hpp"
#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::dcmi {

struct ToolOutput {
  bool ok = false;
  std::string reason;  // why not ok: "npu-smi info -t usages -i 0: exit status 1", a parse error, ...
  std::vector<MetricPoint> points;
};

/// The NPU ids `npu-smi info -l` lists ("NPU ID : 0" lines). Empty with `error` set on failure.
std::vector<int> npu_smi_ids(const std::string& tool, std::chrono::milliseconds timeout, std::string& error);

/// `<tool> info -t <type> -i <id>` parsed as npu-smi key : value output.
ToolOutput run_npu_smi_info(const std::string& tool, const std::string& type, int id,
                            std::chrono::milliseconds timeout, const ascend_console::ConsoleContext& ctx);

/// `<tool> -i <id> <args...>` parsed as hccn_tool output (e.g. args {"-stat", "-g"}).
ToolOutput run_hccn_tool(const std::string& tool, int id, const std::vector<std::string>& args,
                         std::chrono::milliseconds timeout, const ascend_console::ConsoleContext& ctx);

/// The NPU device numbers of the `<root>/dev/davinciN` nodes, sorted.
std::vector<int> davinci_devices(const std::string& root);

/// Why `tool` cannot be run: "npu-smi not on PATH", "/opt/x/npu-smi is not an executable file"; "" if it can.
std::string tool_missing_reason(const std::string& tool);

}  // namespace cann_debug::plugins::dcmi
