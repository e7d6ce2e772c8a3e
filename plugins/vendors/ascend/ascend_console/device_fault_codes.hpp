// Ascend device fault codes: the event ids npu-smi prints as "Error Code" (`npu-smi info -t health`), the
// driver logs as event_id=0x..., and torch_npu reports as ACL error codes, with the component they point at
// and what an operator does about them (mind-cluster ascend-faultdiag's knowledge graph, torch_npu's
// NPUErrorCodes.h).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cann_debug::plugins::ascend_console {

struct DeviceFault {
  std::string_view code;       // "0x80E01801", "507053"
  std::string_view component;  // memory, device, network
  std::string_view severity;   // error or warning
  std::string_view meaning;
  std::string_view action;
};

/// Every code of the catalog, in a fixed order.
const std::vector<DeviceFault>& device_fault_catalog();

/// The catalog entry of `code` (hex case-insensitive, with or without 0x); nullopt when unknown.
std::optional<DeviceFault> device_fault(std::string_view code);

/// The codes of an npu-smi "Error Code" value ("0x80E18402", "0x80E01801 0x80E18402", "NA" = none).
std::vector<std::string> error_codes_of(std::string_view value);

}  // namespace cann_debug::plugins::ascend_console
