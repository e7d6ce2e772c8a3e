// A source of host memory metrics for the ddr sampler: resctrl MBM, perf uncore IMC, /proc/meminfo.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cann_debug/host_services.hpp"
#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::ddr_detail {

class DdrBackend {
 public:
  virtual ~DdrBackend() = default;
  virtual const char* name() const = 0;
  /// Opens what it needs; throws std::runtime_error naming what failed.
  virtual void start() {}
  /// Closes what start() opened; idempotent.
  virtual void stop() {}
  /// Appends this sample's points (rates from the second sample on).
  virtual void sample(std::int64_t now_ns, const CorrelationKey& key, std::vector<MetricPoint>& out,
                      Logger* log) = 0;
};

}  // namespace cann_debug::plugins::ddr_detail
