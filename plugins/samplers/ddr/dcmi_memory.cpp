#include "dcmi_memory.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace cann_debug::plugins::ddr_detail {

namespace {

struct Rate {
  int input_type;
  const char* metric;
  const char* source;
};

constexpr Rate kRates[] = {
    {5, "npu.ddr.bandwidth_utilization", "dcmi_get_device_utilization_rate(5)"},
    {10, "npu.hbm.bandwidth_utilization", "dcmi_get_device_utilization_rate(10)"},
};

}  // namespace

std::string dcmi_unavailable_reason(const std::string& library) {
  dcmi::DcmiLibrary lib;
  if (!lib.open(library)) return lib.error();
  if (!lib.api().get_device_utilization_rate)
    return fmt::format("{} does not export dcmi_get_device_utilization_rate", lib.path());
  std::vector<dcmi::DcmiDevice> devices;
  if (!lib.enumerate(devices)) return lib.error();
  return {};
}

void DcmiMemory::start() {
  calls_.clear();
  devices_.clear();
  if (!lib_.open(library_)) throw std::runtime_error(fmt::format("ddr: dcmi: {}", lib_.error()));
  if (!lib_.api().get_device_utilization_rate)
    throw std::runtime_error(
        fmt::format("ddr: dcmi: {} does not export dcmi_get_device_utilization_rate", lib_.path()));
  if (!lib_.enumerate(devices_)) throw std::runtime_error(fmt::format("ddr: dcmi: {}", lib_.error()));
}

void DcmiMemory::sample(std::int64_t, const CorrelationKey& key, std::vector<MetricPoint>& out, Logger* log) {
  calls_.set_logger(log);
  for (const auto& dev : devices_) {
    for (const auto& r : kRates) {
      if (!calls_.can_call(dev.label, r.source)) continue;
      unsigned int rate = 0;
      if (!calls_.ok(dev.label, r.source,
                     lib_.api().get_device_utilization_rate(dev.card, dev.device, r.input_type, &rate)))
        continue;
      out.push_back(
          {r.metric, "ratio", rate * 0.01, key, {{"device", dev.label}, {"source_name", r.source}}});
    }
  }
  calls_.skipped().add_points(out, key);
}

}  // namespace cann_debug::plugins::ddr_detail
