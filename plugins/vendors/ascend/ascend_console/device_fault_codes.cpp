#include "ascend_console/device_fault_codes.hpp"

#include <cctype>

#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::ascend_console {
namespace {

std::string normalized(std::string_view code) {
  std::string out;
  std::string_view c = readers::trim(code);
  if (c.size() > 2 && c[0] == '0' && (c[1] == 'x' || c[1] == 'X')) c.remove_prefix(2);
  for (char ch : c) out += static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  return out;
}

}  // namespace

const std::vector<DeviceFault>& device_fault_catalog() {
  static const std::vector<DeviceFault> kCatalog{
      {"0x80E01801", "memory", "error", "HBM multi-bit ECC error",
       "isolate the NPU; replace it when it recurs"},
      {"0x80E18400", "memory", "error", "HBM multi-bit ECC error hit a process",
       "restart the job elsewhere; isolate the NPU"},
      {"0x80E01809", "memory", "error", "HBM multi-bit ECC error found by patrol scrubbing",
       "isolate the NPU"},
      {"0x80E18401", "memory", "warning", "16 or more HBM lines isolated", "plan the NPU's replacement"},
      {"0x80E18402", "memory", "error", "64 HBM lines isolated (the limit)", "replace the NPU"},
      {"0x80E18404", "memory", "error", "HBM uncorrectable-error storm", "replace the NPU"},
      {"0x80E0020B", "memory", "warning", "HBM over temperature", "check the cooling of the node"},
      {"0x80FA4E00", "device", "error", "task scheduler heartbeat lost",
       "reset the NPU; drain the node if it recurs"},
      {"0x81078603", "network", "error", "NPU network port went from up to down",
       "check the optical module, cable and switch port (hccn_tool -link_stat -g)"},
      {"0x81078605", "network", "error", "RoCE lanes faulty",
       "reseat or replace the optical module or cable"},
      {"0x81A38605", "network", "error", "HCCS lanes faulty", "drain the node; the board needs service"},
      {"507053", "memory", "error", "device memory uncorrectable error (UCE)",
       "resume from a checkpoint on another NPU"},
      {"507054", "memory", "error", "HBM multi-bit ECC error", "isolate the NPU"},
      {"507055", "memory", "warning", "suspected device memory error", "watch the NPU's ECC counters"},
      {"507056", "network", "error", "link error (HCCS/RoCE)", "check the link of the failing rank"},
      {"507057", "network", "warning", "suspected error on a remote rank",
       "look at the peer rank's logs first"},
  };
  return kCatalog;
}

std::optional<DeviceFault> device_fault(std::string_view code) {
  const std::string want = normalized(code);
  if (want.empty()) return std::nullopt;
  for (const auto& f : device_fault_catalog())
    if (normalized(f.code) == want) return f;
  return std::nullopt;
}

std::vector<std::string> error_codes_of(std::string_view value) {
  std::vector<std::string> out;
  for (std::string_view part : readers::split_ws(value)) {
    while (!part.empty() && (part.back() == ',' || part.back() == ';')) part.remove_suffix(1);
    if (part.empty() || readers::iequals(part, "NA") || readers::iequals(part, "N/A") || part == "0" ||
        part == "-")
      continue;
    out.emplace_back(part);
  }
  return out;
}

}  // namespace cann_debug::plugins::ascend_console
