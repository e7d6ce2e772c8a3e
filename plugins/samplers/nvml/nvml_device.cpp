#include "nvml_device.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace cann_debug::plugins::nvml_detail {

namespace api = nvml_api;

const char* reading_function(Reading r) {
  switch (r) {
    case Reading::kUtilization:
      return "nvmlDeviceGetUtilizationRates";
    case Reading::kMemory:
      return "nvmlDeviceGetMemoryInfo";
    case Reading::kPower:
      return "nvmlDeviceGetPowerUsage";
    case Reading::kClockSm:
      return "nvmlDeviceGetClockInfo(NVML_CLOCK_SM)";
    case Reading::kTemperature:
      return "nvmlDeviceGetTemperature(NVML_TEMPERATURE_GPU)";
    case Reading::kPcieTx:
      return "nvmlDeviceGetPcieThroughput(NVML_PCIE_UTIL_TX_BYTES)";
    case Reading::kPcieRx:
      return "nvmlDeviceGetPcieThroughput(NVML_PCIE_UTIL_RX_BYTES)";
    case Reading::kNvlink:
      return "nvmlDeviceGetFieldValues(NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX/RX)";
    case Reading::kCount:
      break;
  }
  return "?";
}

namespace {

std::string read_string(nvmlReturn_t (*fn)(nvmlDevice_t, char*, unsigned int), nvmlDevice_t handle,
                        unsigned int size) {
  if (!fn) return {};
  std::string buffer(size, '\0');
  if (fn(handle, buffer.data(), size) != api::kSuccess) return {};
  buffer.resize(buffer.find('\0') == std::string::npos ? size : buffer.find('\0'));
  return buffer;
}

// A field value as an unsigned count, or false for a type that cannot be one.
bool field_u64(const nvmlFieldValue_t& f, std::uint64_t& out) {
  switch (f.valueType) {
    case api::kValueUnsignedInt:
      out = f.value.uiVal;
      return true;
    case api::kValueUnsignedLong:
      out = f.value.ulVal;
      return true;
    case api::kValueUnsignedLongLong:
      out = f.value.ullVal;
      return true;
    case api::kValueUnsignedShort:
      out = f.value.usVal;
      return true;
    case api::kValueSignedLongLong:
      if (f.value.sllVal < 0) return false;
      out = static_cast<std::uint64_t>(f.value.sllVal);
      return true;
    case api::kValueSignedInt:
      if (f.value.siVal < 0) return false;
      out = static_cast<std::uint64_t>(f.value.siVal);
      return true;
    case api::kValueDouble:
      if (!(f.value.dVal >= 0)) return false;
      out = static_cast<std::uint64_t>(f.value.dVal);
      return true;
    default:
      return false;
  }
}

}  // namespace

NvmlDevice::NvmlDevice(const NvmlLibrary& lib, unsigned int index, nvmlDevice_t handle, bool nvlink)
    : lib_(lib), index_(index), handle_(handle), device_label_(std::to_string(index)) {
  name_ = read_string(lib.name, handle, api::kDeviceNameBufferSize);
  uuid_ = read_string(lib.uuid, handle, api::kDeviceUuidBufferSize);
  const std::pair<Reading, bool> exported[] = {
      {Reading::kUtilization, lib.utilization != nullptr},
      {Reading::kMemory, lib.memory != nullptr},
      {Reading::kPower, lib.power != nullptr},
      {Reading::kClockSm, lib.clock != nullptr},
      {Reading::kTemperature, lib.temperature != nullptr},
      {Reading::kPcieTx, lib.pcie != nullptr},
      {Reading::kPcieRx, lib.pcie != nullptr},
      {Reading::kNvlink, lib.field_values != nullptr && nvlink},
  };
  for (auto [r, ok] : exported) unsupported_[static_cast<std::size_t>(r)] = !ok;
}

std::string NvmlDevice::describe() const {
  if (name_.empty() && uuid_.empty()) return fmt::format("GPU {}", index_);
  if (uuid_.empty()) return fmt::format("GPU {} ({})", index_, name_);
  return fmt::format("GPU {} ({}, {})", index_, name_.empty() ? "unnamed" : name_, uuid_);
}

void NvmlDevice::mark_unsupported(Reading r, const std::string& why, const NoteSink& note) {
  unsupported_[static_cast<std::size_t>(r)] = true;
  if (note)
    note(false, fmt::format("nvml: {}: {} {}; its metrics are skipped from now on", describe(),
                            reading_function(r), why));
}

bool NvmlDevice::check(Reading r, nvmlReturn_t code, const NoteSink& note) {
  if (code == api::kSuccess) return true;
  if (code == api::kErrorGpuIsLost)
    throw std::runtime_error(
        fmt::format("nvml: {} is lost: {} returned {}; the GPU fell off the bus or needs a "
                    "reset (see dmesg for Xid errors)",
                    describe(), reading_function(r), lib_.describe(code)));
  if (code == api::kErrorNotSupported || code == api::kErrorFunctionNotFound) {
    mark_unsupported(r, fmt::format("returned {}", lib_.describe(code)), note);
    return false;
  }
  if (noted_.emplace(static_cast<std::size_t>(r), code).second && note)
    note(true, fmt::format("nvml: {}: {} returned {}; skipped for this sample", describe(),
                           reading_function(r), lib_.describe(code)));
  return false;
}

MetricSeries NvmlDevice::series(const char* name, const char* unit, const char* source) const {
  return {
      name, unit, {{"device", device_label_}, {"source_name", source}}, static_cast<std::int32_t>(index_)};
}

void NvmlDevice::sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame, const NoteSink& note,
                        bool read_pcie, bool read_slow) {
  // The series of one GPU, keyed by what they measure and the GPU's index.
  enum What : std::uint32_t {
    kGpuUtilisation = 1,
    kMemoryUtilisation,
    kMemoryUsed,
    kMemoryTotal,
    kPower,
    kClockSm,
    kTemperature,
    kPcieTx,
    kPcieRx,
    kNvlinkTx,
    kNvlinkRx,
  };
  auto add = [&](What what, const char* name, const char* unit, double value, const char* source) {
    frame.gauge({what, index_}, value, [&] { return series(name, unit, source); });
  };
  if (supports(Reading::kUtilization)) {
    nvmlUtilization_t u{};
    if (check(Reading::kUtilization, lib_.utilization(handle_, &u), note)) {
      add(kGpuUtilisation, "gpu.utilization", "ratio", u.gpu / 100.0, "utilization.gpu");
      add(kMemoryUtilisation, "gpu.memory.utilization", "ratio", u.memory / 100.0, "utilization.memory");
    }
  }
  if (supports(Reading::kMemory)) {
    nvmlMemory_t m{};
    if (check(Reading::kMemory, lib_.memory(handle_, &m), note)) {
      add(kMemoryUsed, "gpu.memory.used", "bytes", static_cast<double>(m.used), "memory.used");
      add(kMemoryTotal, "gpu.memory.total", "bytes", static_cast<double>(m.total), "memory.total");
    }
  }
  unsigned int v = 0;
  if (supports(Reading::kPower) && check(Reading::kPower, lib_.power(handle_, &v), note))
    add(kPower, "gpu.power", "watts", v / 1000.0, "power.draw");  // milliwatts
  if (supports(Reading::kClockSm) && check(Reading::kClockSm, lib_.clock(handle_, api::kClockSm, &v), note))
    add(kClockSm, "gpu.clock.sm", "hertz", v * 1e6, "clocks.sm");  // MHz
  if (read_slow && supports(Reading::kTemperature) &&
      check(Reading::kTemperature, lib_.temperature(handle_, api::kTemperatureGpu, &v), note))
    add(kTemperature, "gpu.temperature", "celsius", v, "temperature.gpu");
  // PCIe throughput over NVML's last 20 ms window, in KB/s (KiB: x1024).
  if (read_pcie && supports(Reading::kPcieTx) &&
      check(Reading::kPcieTx, lib_.pcie(handle_, api::kPcieUtilTxBytes, &v), note))
    add(kPcieTx, "gpu.pcie.tx_bandwidth", "bytes/s", v * 1024.0, "pcie.tx_throughput");
  if (read_pcie && supports(Reading::kPcieRx) &&
      check(Reading::kPcieRx, lib_.pcie(handle_, api::kPcieUtilRxBytes, &v), note))
    add(kPcieRx, "gpu.pcie.rx_bandwidth", "bytes/s", v * 1024.0, "pcie.rx_throughput");
  if (supports(Reading::kNvlink)) {
    nvmlFieldValue_t f[2] = {};
    f[0].fieldId = api::kFieldNvlinkThroughputDataTx;
    f[1].fieldId = api::kFieldNvlinkThroughputDataRx;
    f[0].scopeId = f[1].scopeId = api::kScopeAllLinks;
    if (check(Reading::kNvlink, lib_.field_values(handle_, 2, f), note)) {
      const char* names[] = {"gpu.nvlink.tx_bandwidth", "gpu.nvlink.rx_bandwidth"};
      const char* sources[] = {"NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_TX",
                               "NVML_FI_DEV_NVLINK_THROUGHPUT_DATA_RX"};
      const What whats[] = {kNvlinkTx, kNvlinkRx};
      for (int i = 0; i < 2; ++i) {
        if (f[i].nvmlReturn != api::kSuccess) {
          // Per-field status: the same rules, once for the pair.
          if (!check(Reading::kNvlink, f[i].nvmlReturn, note)) break;
        }
        std::uint64_t kib = 0;
        if (!field_u64(f[i], kib)) continue;
        // Cumulative KiB: the rate of change, in bytes/s.
        frame.rate(
            {whats[i], index_}, kib, 64, now_ns, [&] { return series(names[i], "bytes/s", sources[i]); },
            1024.0);
      }
    }
  }
}

}  // namespace cann_debug::plugins::nvml_detail
