// What one nvidia-smi capture says about one GPU, whichever form it came in (`nvidia-smi -q -x` XML or the
// console table), and the hardware conditions that follow from it: uncorrectable ECC errors, rows waiting
// for remapping or that could not be remapped, pages pending retirement, hardware clock slowdowns, a PCIe
// link running narrower than it can, a GPU the driver lost ("ERR!").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::nvidia_smi {

struct GpuState {
  int index = -1;      // minor number / the table's GPU column
  std::string bus_id;  // "00000000:01:00.0"
  std::string name;    // product name
  std::string uuid;
  std::int64_t line = 0;  // where the GPU starts in the file (1-based)
  std::optional<double> temperature_c, slowdown_temperature_c, power_w, power_limit_w, sm_clock_mhz,
      max_sm_clock_mhz, memory_used_mib, memory_total_mib, utilization_pct, fan_pct;
  std::optional<double> ecc_uncorrected_volatile, ecc_uncorrected_aggregate, ecc_corrected_volatile;
  std::optional<double> retired_pages_double_bit, retired_pages_single_bit;
  bool retired_pages_pending = false, remap_pending = false, remap_failure = false;
  std::optional<double> remapped_rows_uncorrectable;
  std::vector<std::string> slowdown_reasons;  // active hardware/thermal slowdowns (not the power cap)
  std::optional<double> pcie_width, pcie_max_width;
  std::string performance_state;  // P0 ... P12
  bool lost = false;              // the table printed ERR! for it
};

/// The capture's GPUs as records: one `log_kind: device` record per GPU (its figures), then one
/// `log_kind: event` record per condition (`hardware: true`, severity error or warning, with what it
/// means and what to do), all keyed by `time` and `node`.
std::vector<Record> records_of(const std::vector<GpuState>& gpus, TimestampNs time, const std::string& node);

}  // namespace cann_debug::plugins::nvidia_smi
