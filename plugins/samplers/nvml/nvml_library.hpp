// libnvidia-ml opened with dlopen: the NVML functions the nvml sampler calls, resolved once per path and
// kept loaded for the life of the process (NVML may leave threads behind that must not outlive its code).
#pragma once

#include <memory>
#include <string>

#include "cann_debug/sampler/dynamic_library.hpp"
#include "nvml_api.hpp"

namespace cann_debug::plugins::nvml_detail {

class NvmlLibrary {
 public:
  /// The library at `path` (a name dlopen looks up, or a path), opened once per process. Never null; check
  /// usable() and error().
  static std::shared_ptr<const NvmlLibrary> get(const std::string& path);

  /// Opened, with the four functions without which nothing can be read.
  bool usable() const { return error_.empty(); }
  /// Why not: dlerror()'s text or the missing function.
  const std::string& error() const { return error_; }
  const std::string& path() const { return path_; }

  /// "NVML_ERROR_GPU_IS_LOST (GPU is lost)": the code's name and nvmlErrorString's text when available.
  std::string describe(nvmlReturn_t code) const;

  // Required.
  nvmlInit_v2_fn init = nullptr;
  nvmlShutdown_fn shutdown = nullptr;
  nvmlDeviceGetCount_v2_fn device_count = nullptr;
  nvmlDeviceGetHandleByIndex_v2_fn device_handle = nullptr;
  // Optional: nullptr when the driver does not export them (the metric is then not supported).
  nvmlErrorString_fn error_string = nullptr;
  nvmlDeviceGetName_fn name = nullptr;
  nvmlDeviceGetUUID_fn uuid = nullptr;
  nvmlDeviceGetUtilizationRates_fn utilization = nullptr;
  nvmlDeviceGetMemoryInfo_fn memory = nullptr;
  nvmlDeviceGetPowerUsage_fn power = nullptr;
  nvmlDeviceGetClockInfo_fn clock = nullptr;
  nvmlDeviceGetTemperature_fn temperature = nullptr;
  nvmlDeviceGetPcieThroughput_fn pcie = nullptr;
  nvmlDeviceGetFieldValues_fn field_values = nullptr;

 private:
  explicit NvmlLibrary(const std::string& path);
  sampler_support::DynamicLibrary lib_;
  std::string path_;
  std::string error_;
};

}  // namespace cann_debug::plugins::nvml_detail
