// One GPU as the nvml sampler reads it: which readings it supports (learnt from NOT_SUPPORTED, never asked
// again), and each reading turned into metric points in our units.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/frame_builder.hpp"
#include "nvml_library.hpp"

namespace cann_debug::plugins::nvml_detail {

enum class Reading : std::size_t {
  kUtilization,  // nvmlDeviceGetUtilizationRates
  kMemory,       // nvmlDeviceGetMemoryInfo
  kPower,        // nvmlDeviceGetPowerUsage
  kClockSm,      // nvmlDeviceGetClockInfo(NVML_CLOCK_SM)
  kTemperature,  // nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)
  kPcieTx,       // nvmlDeviceGetPcieThroughput(NVML_PCIE_UTIL_TX_BYTES)
  kPcieRx,       // nvmlDeviceGetPcieThroughput(NVML_PCIE_UTIL_RX_BYTES)
  kNvlink,       // nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX)
  kCount,
};

/// The NVML function behind a reading, for messages and the source_name label.
const char* reading_function(Reading r);

/// Notes for the log: (level is warn when true, info otherwise, message).
using NoteSink = std::function<void(bool warn, const std::string& message)>;

class NvmlDevice {
 public:
  NvmlDevice(const NvmlLibrary& lib, unsigned int index, nvmlDevice_t handle, bool nvlink);

  unsigned int index() const { return index_; }
  const std::string& name() const { return name_; }
  const std::string& uuid() const { return uuid_; }
  /// "GPU 0 (NVIDIA A100-SXM4-80GB, GPU-5f2c...)"
  std::string describe() const;
  bool supports(Reading r) const { return !unsupported_[static_cast<std::size_t>(r)]; }

  /// Reads every supported reading and appends its points. A NOT_SUPPORTED reading is noted once and
  /// skipped from then on; another error skips it for this sample (noted once per code); a lost GPU
  /// throws std::runtime_error naming the device.
  /// PCIe throughput is read only when `read_pcie` (each call blocks while NVML measures over 20 ms), the
  /// temperature only when `read_slow` (SlowReadings).
  void sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame, const NoteSink& note, bool read_pcie,
              bool read_slow);

 private:
  bool check(Reading r, nvmlReturn_t code, const NoteSink& note);
  void mark_unsupported(Reading r, const std::string& why, const NoteSink& note);
  MetricSeries series(const char* name, const char* unit, const char* source) const;

  const NvmlLibrary& lib_;
  unsigned int index_;
  nvmlDevice_t handle_;
  std::string name_, uuid_, device_label_;
  std::array<bool, static_cast<std::size_t>(Reading::kCount)> unsupported_{};
  std::set<std::pair<std::size_t, nvmlReturn_t>> noted_;
};

}  // namespace cann_debug::plugins::nvml_detail
