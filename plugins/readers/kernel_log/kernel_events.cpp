// Kernel log lines -> hardware events (see kernel_events.hpp). Xid meanings and actions are NVIDIA's Xid
// catalog as transcribed by leptonai/gpud (components/accelerator/nvidia/xid/xid.go).
#include "kernel_events.hpp"

#include <array>
#include <cctype>
#include <chrono>

#include "cann_debug/reader/numbers.hpp"
#include "cann_debug/reader/text.hpp"

namespace cann_debug::plugins::kernel_log {
namespace {

struct XidEntry {
  int code;
  bool hardware;
  const char* meaning;
  const char* action;
};

constexpr std::array<XidEntry, 17> kXids{{
    {13, false, "graphics engine exception (usually the application)", "check the application, then the GPU"},
    {31, false, "GPU memory page fault (usually the application)", "check the application, then the GPU"},
    {43, false, "GPU stopped processing (usually the application)", "check the application, then the GPU"},
    {45, false, "preemptive cleanup after an earlier error", "look at the error before it"},
    {48, true, "double-bit ECC error", "reset the GPU or reboot; drain if followed by Xid 63/64"},
    {61, true, "internal micro-controller breakpoint", "reset the GPU"},
    {62, true, "internal micro-controller halt", "reset the GPU"},
    {63, true, "row remapping recorded (page retirement)", "reset the GPU to activate the remapping"},
    {64, true, "row remapping failed", "drain the node; RMA path"},
    {74, true, "NVLink error", "reset the GPU; drain if it repeats"},
    {79, true, "GPU has fallen off the bus", "drain the node"},
    {92, true, "high single-bit ECC error rate", "RMA if the rate stays high"},
    {94, true, "contained ECC error", "restart the application"},
    {95, true, "uncontained ECC error", "reset the GPU now"},
    {119, true, "GSP RPC timeout", "reset the GPU or power-cycle the node"},
    {120, true, "GSP error", "reset the GPU or power-cycle the node"},
    {154, true, "GPU recovery action changed", "read the recovery action the driver asks for"},
}};

bool has(std::string_view t, std::string_view s) {
  return t.find(s) != std::string_view::npos;
}

std::string digits_from(std::string_view t, std::size_t at) {
  std::string out;
  while (at < t.size() && t[at] == ' ') ++at;
  while (at < t.size() && std::isdigit(static_cast<unsigned char>(t[at]))) out += t[at++];
  return out;
}

}  // namespace

std::string_view split_kernel_line(std::string_view line, TimestampNs& time_ns, double& uptime_s) {
  time_ns = kNoTimestamp;
  uptime_s = -1;
  std::string_view t = line;
  if (t.starts_with('[')) {
    const std::size_t close = t.find(']');
    if (close != std::string_view::npos) {
      const std::string_view stamp = readers::trim(t.substr(1, close - 1));
      if (auto ns = readers::ctime_utc_ns(stamp))
        time_ns = *ns;
      else if (auto up = readers::parse_double(stamp); up && *up >= 0)
        uptime_s = *up;
      if (time_ns != kNoTimestamp || uptime_s >= 0) t = readers::trim(t.substr(close + 1));
    }
  }
  // journalctl: "... host kernel: message"
  if (const std::size_t k = t.find(" kernel: "); k != std::string_view::npos && k < 80) t = t.substr(k + 9);
  return t;
}

std::optional<KernelEvent> classify_kernel_message(std::string_view t) {
  KernelEvent e;
  e.severity = "error";
  if (const std::size_t x = t.find("NVRM: Xid"); x != std::string_view::npos) {
    e.event = "xid";
    e.component = "device";
    const std::size_t pci = t.find("PCI:", x);
    const std::size_t close = t.find(')', x);
    if (pci != std::string_view::npos && close != std::string_view::npos && pci < close)
      e.device = std::string(t.substr(pci + 4, close - pci - 4));
    if (close != std::string_view::npos && close + 1 < t.size() && t[close + 1] == ':')
      e.code = digits_from(t, close + 2);
    if (const std::size_t p = t.find("pid="); p != std::string_view::npos) {
      const std::string digits = digits_from(t, p + 4);
      if (!digits.empty() && digits.size() < 10) e.pid = std::stoll(digits);
    }
    if (const std::size_t n = t.find("name="); n != std::string_view::npos) {
      const std::size_t end = t.find(',', n);
      e.process =
          std::string(t.substr(n + 5, end == std::string_view::npos ? std::string_view::npos : end - n - 5));
    }
    if (!e.code.empty() && e.code.size() < 6) {
      const int code = std::stoi(e.code);
      for (const auto& x_entry : kXids)
        if (x_entry.code == code) {
          e.hardware = x_entry.hardware;
          e.meaning = x_entry.meaning;
          e.action = x_entry.action;
        }
      if (code == 45) e.severity = "warning";
    }
    return e;
  }
  if (has(t, "NVLink") && (has(t, "error") || has(t, "fatal") || has(t, "Fatal"))) {
    e.event = "nvlink";
    e.component = "device";
    e.hardware = true;
    return e;
  }
  if (has(t, "EDAC") && (has(t, " CE ") || has(t, " UE ") || has(t, "error"))) {
    e.event = "ecc";
    e.component = "memory";
    e.hardware = true;
    e.severity = has(t, " UE ") || has(t, "Uncorrected") || has(t, "uncorrectable") ? "error" : "warning";
    return e;
  }
  if (has(t, "AER:") && (has(t, "error") || has(t, "Error"))) {
    e.event = "pcie_aer";
    e.component = "pcie";
    e.hardware = true;
    e.severity = has(t, "Uncorrected") || has(t, "Fatal") ? "error" : "warning";
    if (const std::size_t d = t.find("0000:"); d != std::string_view::npos)
      e.device = std::string(readers::split_ws(t.substr(d))[0]);
    while (!e.device.empty() && (e.device.back() == ':' || e.device.back() == ',')) e.device.pop_back();
    return e;
  }
  if (has(t, "Out of memory: Killed process") || has(t, "oom-kill:") ||
      has(t, "Memory cgroup out of memory")) {
    e.event = "oom_kill";
    e.component = "host";
    if (const std::size_t k = t.find("Killed process "); k != std::string_view::npos) {
      const std::string digits = digits_from(t, k + 15);
      if (!digits.empty() && digits.size() < 10) e.pid = std::stoll(digits);
      const std::size_t open = t.find('(', k), close = t.find(')', k);
      if (open != std::string_view::npos && close != std::string_view::npos && open < close)
        e.process = std::string(t.substr(open + 1, close - open - 1));
    }
    return e;
  }
  if (has(t, "blocked for more than") && has(t, "seconds")) {
    e.event = "hung_task";
    e.component = "host";
    e.severity = "warning";
    return e;
  }
  if (has(t, "soft lockup") || has(t, "hard LOCKUP")) {
    e.event = "soft_lockup";
    e.component = "host";
    return e;
  }
  return std::nullopt;
}

}  // namespace cann_debug::plugins::kernel_log
