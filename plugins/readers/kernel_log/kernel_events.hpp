// What a kernel log line (dmesg, dmesg -T, journalctl -k) says about the hardware under a training job:
// NVIDIA Xid errors with their catalog meaning, ECC/EDAC reports, PCIe AER errors, the OOM killer, hung
// tasks and soft lockups, NVLink faults.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cann_debug/time.hpp"

namespace cann_debug::plugins::kernel_log {

struct KernelEvent {
  std::string event;      // xid, ecc, pcie_aer, oom_kill, hung_task, soft_lockup, nvlink
  std::string component;  // device, memory, pcie, host
  std::string severity;   // error or warning
  bool hardware = false;
  std::string code;     // the Xid number
  std::string device;   // PCI address "0000:9b:00" when the line names one
  std::string process;  // name=... / Killed process N (name)
  std::int64_t pid = -1;
  std::string meaning;  // the catalog's meaning of an Xid
  std::string action;   // and what to do
};

/// The event of a kernel message (the text after the timestamp and any "kernel:" prefix), or nullopt.
std::optional<KernelEvent> classify_kernel_message(std::string_view message);

/// Splits the timestamp off a kernel log line: "[Sun Feb 23 16:24:18 2025] msg" (dmesg -T; read as UTC),
/// "[ 1234.567890] msg" (seconds since boot, into `uptime_s`), "2025-02-23T16:24:18+0000 host kernel: msg"
/// and "Feb 23 16:24:18 host kernel: msg" (journal; the year is unknown, so no timestamp). Returns the
/// message.
std::string_view split_kernel_line(std::string_view line, TimestampNs& time_ns, double& uptime_s);

}  // namespace cann_debug::plugins::kernel_log
