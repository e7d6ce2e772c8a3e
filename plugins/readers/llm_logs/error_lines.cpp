// Error and warning lines of training logs (see error_lines.hpp). The substrings are the texts the
// libraries print (NCCL, c10d, torch_npu/ACL/HCCL, the NVIDIA driver, DataLoader, DeepSpeed, Megatron's
// rerun state machine); docs/readers.md lists them.
#include "error_lines.hpp"

#include <array>
#include <cctype>

#include "ascend_console/device_fault_codes.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::llm_logs {
namespace {

bool has(std::string_view text, std::string_view needle) {
  return text.find(needle) != std::string_view::npos;
}

std::string digits_after(std::string_view text, std::string_view marker) {
  std::size_t at = text.find(marker);
  if (at == std::string_view::npos) return {};
  at += marker.size();
  while (at < text.size() && text[at] == ' ') ++at;
  std::string out;
  while (at < text.size() && std::isdigit(static_cast<unsigned char>(text[at]))) out += text[at++];
  return out;
}

// "EI0002", "EZ9999", "EL0004", "ERR02200": a CANN error id at a word start.
std::string cann_error_id(std::string_view text) {
  for (std::size_t i = 0; i + 6 <= text.size(); ++i) {
    if (text[i] != 'E' || (i > 0 && std::isalnum(static_cast<unsigned char>(text[i - 1])))) continue;
    std::size_t j = i + 1;
    if (text.substr(j).starts_with("RR"))
      j += 2;
    else if (j < text.size() && std::isupper(static_cast<unsigned char>(text[j])))
      ++j;
    else
      continue;
    std::size_t k = j;
    while (k < text.size() && std::isdigit(static_cast<unsigned char>(text[k]))) ++k;
    if (k - j >= 4 && k - j <= 5 && (k == text.size() || !std::isalnum(static_cast<unsigned char>(text[k]))))
      return std::string(text.substr(i, k - i));
  }
  return {};
}

// Xid codes that name the GPU's hardware (NVIDIA's catalog): ECC, row remapping, NVLink, fallen off the
// bus, GSP. 13/31/43 are usually the application; 45 follows an earlier error.
bool hardware_xid(int xid) {
  constexpr std::array<int, 12> kHardware{48, 61, 62, 63, 64, 74, 79, 92, 94, 95, 119, 120};
  for (int x : kHardware)
    if (x == xid) return true;
  return false;
}

// NPU texts that name a hardware fault: torch_npu's NPUQueue tags, and the codes of the Ascend device fault
// catalog (ACL codes 507053..507057, driver event ids 0x80E01801, ...).
bool npu_hardware_text(std::string_view t) {
  for (std::string_view s : {"UCE ERROR", "HBM MULTI BIT ECC", "SUSPECT MEM ERROR", "HCCS LINK ERROR",
                             "UB LINK ERROR", "SUSPECT REMOTE ERROR", "device mem error"})
    if (has(t, s)) return true;
  for (const auto& fault : ascend_console::device_fault_catalog())
    if (has(t, fault.code)) return true;
  return false;
}

}  // namespace

bool is_exception_line(std::string_view text) {
  std::size_t i = 0;
  while (i < text.size() &&
         (std::isalnum(static_cast<unsigned char>(text[i])) || text[i] == '_' || text[i] == '.'))
    ++i;
  if (i == 0 || !std::isalpha(static_cast<unsigned char>(text[0]))) return false;
  if (i < text.size() && text[i] != ':') return false;
  const std::string_view name = text.substr(0, i);
  for (std::string_view suffix : {"Error", "Exception", "Interrupt", "Exit", "Failure", "Fault"})
    if (name.ends_with(suffix)) return true;
  return false;
}

std::optional<ErrorLine> classify_error_line(std::string_view t) {
  ErrorLine e;
  e.severity = "error";
  if (has(t, "Watchdog caught collective operation timeout") || has(t, "Timeout at NCCL work") ||
      has(t, "Notify register times out") || (has(t, "HCCL") && has(t, "timeout") && has(t, "Work"))) {
    e.event = "collective_timeout";
    e.component = "network";
    e.backend = has(t, "HCCL") || has(t, "Notify") ? "hccl" : "nccl";
    e.code = cann_error_id(t);
    return e;
  }
  if (has(t, "NVRM: Xid")) {
    e.event = "xid";
    e.component = "device";
    e.backend = "cuda";
    const std::size_t close = t.find("): ", t.find("NVRM: Xid"));
    if (close != std::string_view::npos) e.code = digits_after(t.substr(close), "): ");
    e.hardware = !e.code.empty() && hardware_xid(std::stoi(e.code.substr(0, 6)));
    if (e.code == "45") e.severity = "warning";
    return e;
  }
  if (has(t, "out of memory") || has(t, "OutOfMemoryError") || has(t, "EL0004") ||
      has(t, "Failed to allocate")) {
    e.event = "out_of_memory";
    e.component = "memory";
    e.backend = has(t, "NPU") || has(t, "EL0004") ? "npu" : (has(t, "CUDA") ? "cuda" : "");
    e.code = cann_error_id(t);
    return e;
  }
  if (has(t, "DataLoader worker") && (has(t, "exited unexpectedly") || has(t, "killed by signal"))) {
    e.event = "dataloader_worker";
    e.component = "data";
    return e;
  }
  if (has(t, "insufficient shared memory")) {
    e.event = "dataloader_worker";
    e.component = "data";
    return e;
  }
  if (has(t, "NCCL WARN") || has(t, "NCCL error") || has(t, "ncclUnhandledCudaError") ||
      has(t, "ncclSystemError") || has(t, "ncclInternalError") || has(t, "ncclRemoteError") ||
      has(t, "remote process exited or there was a network error")) {
    e.event = "comm_error";
    e.component = "network";
    e.backend = "nccl";
    if (has(t, "NCCL WARN")) e.severity = "warning";
    return e;
  }
  if (has(t, "HCCL function error") || has(t, "ERR02200") || has(t, "EI0006") || has(t, "HcclResult") ||
      has(t, "HCCS LINK ERROR") || has(t, "ROCE_CONNECT") || has(t, "error CQE")) {
    e.event = "comm_error";
    e.component = "network";
    e.backend = "hccl";
    e.code = cann_error_id(t);
    if (e.code.empty()) e.code = digits_after(t, "error code is");
    e.hardware = npu_hardware_text(t) || has(t, "error CQE");
    return e;
  }
  if (has(t, "NPU function error") || has(t, "EZ9999") || has(t, "aicore exception") ||
      has(t, "AICORE ERROR") || npu_hardware_text(t) || has(t, "PTA call acl api failed") ||
      has(t, "FORCE STOP")) {
    e.event = "device_error";
    e.component = "device";
    e.backend = "npu";
    e.code = digits_after(t, "error code is");
    if (e.code.empty()) e.code = cann_error_id(t);
    e.hardware = npu_hardware_text(t);
    return e;
  }
  if (has(t, "CUDA error") || has(t, "cudaError") || has(t, "uncorrectable ECC error") ||
      has(t, "device-side assert")) {
    e.event = "device_error";
    e.component = "device";
    e.backend = "cuda";
    e.hardware = has(t, "ECC") || has(t, "fallen off the bus");
    return e;
  }
  if (has(t, "OVERFLOW!") && has(t, "Skipping step")) {
    e.event = "overflow_skip";
    e.component = "numerics";
    e.severity = "warning";
    return e;
  }
  if (has(t, "found NaN in local") || has(t, "Unexpected result") || has(t, "Spiky loss")) {
    e.event = "nan_detected";
    e.component = "numerics";
    e.severity = "warning";
    return e;
  }
  if (has(t, "ChildFailedError") || has(t, "exitcode  : -9") || has(t, "Signal 9 (SIGKILL)") ||
      has(t, "SIGTERM received") || has(t, "received signal SIGKILL")) {
    e.event = "process_failure";
    e.component = "software";
    return e;
  }
  return std::nullopt;
}

}  // namespace cann_debug::plugins::llm_logs
