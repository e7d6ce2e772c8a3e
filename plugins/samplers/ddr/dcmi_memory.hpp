// Ascend NPU memory bandwidth through DCMI (libdcmi.so via the shared DcmiLibrary binding):
// dcmi_get_device_utilization_rate input_type 5 (DDR bandwidth) and 10 (HBM bandwidth), as ratios.
#pragma once

#include <string>
#include <vector>

#include "backend.hpp"
#include "dcmi/dcmi_api.hpp"
#include "dcmi/dcmi_calls.hpp"

namespace cann_debug::plugins::ddr_detail {

/// "" when `library` loads, initialises and lists at least one NPU, else why not.
std::string dcmi_unavailable_reason(const std::string& library);

class DcmiMemory final : public DdrBackend {
 public:
  explicit DcmiMemory(std::string library) : library_(std::move(library)) {}
  const char* name() const override { return "dcmi"; }
  void start() override;
  /// npu.ddr.bandwidth_utilization and npu.hbm.bandwidth_utilization (ratio) per NPU (label device = the
  /// logical id); an error code gives no point and is counted in sampler.skipped_readings; a type the chip
  /// does not support (-8255) is not asked again.
  void sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame, Logger* log) override;

 private:
  std::string library_;
  dcmi::DcmiLibrary lib_;
  std::vector<dcmi::DcmiDevice> devices_;
  dcmi::DcmiCalls calls_;
};

}  // namespace cann_debug::plugins::ddr_detail
