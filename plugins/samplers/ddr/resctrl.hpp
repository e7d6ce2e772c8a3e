// Memory bandwidth from Linux resctrl MBM (Intel RDT / AMD PQoS): the cumulative byte counters
// <root>/sys/fs/resctrl/mon_data/mon_L3_<id>/mbm_{total,local}_bytes of the default group, as rates.
#pragma once

#include <string>

#include "backend.hpp"
#include "cann_debug/sampler/counter_delta.hpp"
#include "cann_debug/sampler/relisted.hpp"
#include "cann_debug/sampler/sysfs_files.hpp"

namespace cann_debug::plugins::ddr_detail {

/// "" when there is at least one mon_L3_* domain with an MBM counter, else why not.
std::string resctrl_unavailable_reason(const std::string& root);

class ResctrlMbm final : public DdrBackend {
 public:
  explicit ResctrlMbm(const std::string& root);
  const char* name() const override { return "resctrl"; }
  /// ddr.bandwidth.total and ddr.bandwidth.local (bytes/s) per L3 domain (label domain). A counter that
  /// reads "Unavailable" gives no point this sample (noted once); the next reading's rate spans the gap.
  void sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame, Logger* log) override;

 private:
  std::string mon_data_;
  struct Domain {
    std::string label;  // <id> without leading zeros
    std::uint32_t id = 0;
    std::vector<sampler_support::KeptOpenFile> files;  // one per counter, kept open
  };
  sampler_support::Relisted<Domain> domains_;  // by directory, mon_L3_<id>
  std::uint32_t unnumbered_ = 0;
  bool noted_unavailable_ = false;
};

}  // namespace cann_debug::plugins::ddr_detail
