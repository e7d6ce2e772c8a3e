#include "nvml_library.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>

namespace cann_debug::plugins::nvml_api {

const char* return_code_name(nvmlReturn_t code) {
  switch (code) {
    case 0:
      return "NVML_SUCCESS";
    case 1:
      return "NVML_ERROR_UNINITIALIZED";
    case 2:
      return "NVML_ERROR_INVALID_ARGUMENT";
    case 3:
      return "NVML_ERROR_NOT_SUPPORTED";
    case 4:
      return "NVML_ERROR_NO_PERMISSION";
    case 5:
      return "NVML_ERROR_ALREADY_INITIALIZED";
    case 6:
      return "NVML_ERROR_NOT_FOUND";
    case 7:
      return "NVML_ERROR_INSUFFICIENT_SIZE";
    case 8:
      return "NVML_ERROR_INSUFFICIENT_POWER";
    case 9:
      return "NVML_ERROR_DRIVER_NOT_LOADED";
    case 10:
      return "NVML_ERROR_TIMEOUT";
    case 11:
      return "NVML_ERROR_IRQ_ISSUE";
    case 12:
      return "NVML_ERROR_LIBRARY_NOT_FOUND";
    case 13:
      return "NVML_ERROR_FUNCTION_NOT_FOUND";
    case 14:
      return "NVML_ERROR_CORRUPTED_INFOROM";
    case 15:
      return "NVML_ERROR_GPU_IS_LOST";
    case 16:
      return "NVML_ERROR_RESET_REQUIRED";
    case 17:
      return "NVML_ERROR_OPERATING_SYSTEM";
    case 18:
      return "NVML_ERROR_LIB_RM_VERSION_MISMATCH";
    case 19:
      return "NVML_ERROR_IN_USE";
    case 20:
      return "NVML_ERROR_MEMORY";
    case 21:
      return "NVML_ERROR_NO_DATA";
    case 999:
      return "NVML_ERROR_UNKNOWN";
    default:
      return "NVML error";
  }
}

}  // namespace cann_debug::plugins::nvml_api

namespace cann_debug::plugins::nvml_detail {

std::shared_ptr<const NvmlLibrary> NvmlLibrary::get(const std::string& path) {
  static std::mutex mu;
  // Never freed: the libraries stay loaded for the life of the process.
  static auto* opened = new std::map<std::string, std::shared_ptr<const NvmlLibrary>>();
  std::lock_guard lock(mu);
  auto& slot = (*opened)[path];
  if (!slot || !slot->usable())
    slot.reset(new NvmlLibrary(path));  // retry a failed open: it may be installed now
  return slot;
}

NvmlLibrary::NvmlLibrary(const std::string& path) : path_(path) {
  if (!lib_.open({path})) {
    error_ = lib_.error();
    return;
  }
  init = lib_.function<nvmlReturn_t()>("nvmlInit_v2");
  shutdown = lib_.function<nvmlReturn_t()>("nvmlShutdown");
  device_count = lib_.function<nvmlReturn_t(unsigned int*)>("nvmlDeviceGetCount_v2");
  device_handle = lib_.function<nvmlReturn_t(unsigned int, nvmlDevice_t*)>("nvmlDeviceGetHandleByIndex_v2");
  for (auto [fn, name] : {std::pair<bool, const char*>{init != nullptr, "nvmlInit_v2"},
                          {shutdown != nullptr, "nvmlShutdown"},
                          {device_count != nullptr, "nvmlDeviceGetCount_v2"},
                          {device_handle != nullptr, "nvmlDeviceGetHandleByIndex_v2"}})
    if (!fn) {
      error_ = fmt::format("{} does not export {} (an NVML older than driver 325?)", path, name);
      return;
    }
  error_string = lib_.function<const char*(nvmlReturn_t)>("nvmlErrorString");
  name = lib_.function<nvmlReturn_t(nvmlDevice_t, char*, unsigned int)>("nvmlDeviceGetName");
  uuid = lib_.function<nvmlReturn_t(nvmlDevice_t, char*, unsigned int)>("nvmlDeviceGetUUID");
  utilization =
      lib_.function<nvmlReturn_t(nvmlDevice_t, nvmlUtilization_t*)>("nvmlDeviceGetUtilizationRates");
  memory = lib_.function<nvmlReturn_t(nvmlDevice_t, nvmlMemory_t*)>("nvmlDeviceGetMemoryInfo");
  power = lib_.function<nvmlReturn_t(nvmlDevice_t, unsigned int*)>("nvmlDeviceGetPowerUsage");
  clock = lib_.function<nvmlReturn_t(nvmlDevice_t, int, unsigned int*)>("nvmlDeviceGetClockInfo");
  temperature = lib_.function<nvmlReturn_t(nvmlDevice_t, int, unsigned int*)>("nvmlDeviceGetTemperature");
  pcie = lib_.function<nvmlReturn_t(nvmlDevice_t, int, unsigned int*)>("nvmlDeviceGetPcieThroughput");
  field_values =
      lib_.function<nvmlReturn_t(nvmlDevice_t, int, nvmlFieldValue_t*)>("nvmlDeviceGetFieldValues");
}

std::string NvmlLibrary::describe(nvmlReturn_t code) const {
  const char* text = error_string ? error_string(code) : nullptr;
  if (text && *text) return fmt::format("{} ({})", nvml_api::return_code_name(code), text);
  return fmt::format("{} ({})", nvml_api::return_code_name(code), code);
}

}  // namespace cann_debug::plugins::nvml_detail
