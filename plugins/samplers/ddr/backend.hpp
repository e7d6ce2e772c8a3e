// A source of host memory metrics for the ddr sampler: resctrl MBM, perf uncore IMC, /proc/meminfo.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cann_debug/host_services.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/frame_builder.hpp"

namespace cann_debug::plugins::ddr_detail {

class DdrBackend {
 public:
  virtual ~DdrBackend() = default;
  virtual const char* name() const = 0;
  /// Opens what it needs; throws std::runtime_error naming what failed.
  virtual void start() {}
  /// Closes what start() opened; idempotent.
  virtual void stop() {}
  /// Puts this sample's readings into `frame` (rates from the second sample on). Each back end keys its
  /// series with its own `what` values (kWhat* below).
  virtual void sample(std::int64_t now_ns, sampler_support::FrameBuilder& frame, Logger* log) = 0;
};

// The first part of the series keys of each back end.
enum BackendWhat : std::uint32_t {
  kWhatResctrl = 100,
  kWhatMeminfo = 200,
  kWhatDcmi = 300,
  kWhatPerfImc = 400,
};

}  // namespace cann_debug::plugins::ddr_detail
