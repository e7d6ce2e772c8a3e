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

void DcmiMemory::sample(std::int64_t, sampler_support::FrameBuilder& frame, Logger* log) {
  calls_.set_logger(log);
  for (std::uint32_t d = 0; d < devices_.size(); ++d) {
    const auto& dev = devices_[d];
    for (std::uint32_t i = 0; i < std::size(kRates); ++i) {
      const auto& r = kRates[i];
      if (!calls_.can_call(dev.label, r.source)) continue;
      unsigned int rate = 0;
      if (!calls_.ok(dev.label, r.source,
                     lib_.api().get_device_utilization_rate(dev.card, dev.device, r.input_type, &rate)))
        continue;
      frame.gauge({kWhatDcmi + i, d}, rate * 0.01, [&] {
        return MetricSeries{
            r.metric, "ratio", {{"device", dev.label}, {"source_name", r.source}}, dev.logic_id};
      });
    }
  }
  calls_.skipped().add_to(frame);
}

}  // namespace cann_debug::plugins::ddr_detail
