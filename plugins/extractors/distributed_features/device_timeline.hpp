// The device side of one rank's Kineto trace: GPU kernels, memcpys and memsets, and the CPU launch calls
// that queued them. On a GPU the CPU-side collective calls (nccl:all_reduce, c10d::*) only enqueue work,
// so a step's communication is measured on the device timeline instead, following HTA's definitions
// (plugins/extractors/hta_metrics: kernel classes, comm/comp overlap, idle time).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "intervals/interval_set.hpp"

namespace cann_debug::plugins::distributed {

/// What the device did for one profiled step; all times in ns.
struct DeviceStep {
  std::int64_t collective_ns = 0;          // union of NCCL (communication) kernels
  std::int64_t exposed_collective_ns = 0;  // NCCL time not overlapped by compute kernels
  std::int64_t compute_ns = 0;             // union of compute kernels
  std::int64_t busy_ns = 0;                // union of every device row (kernels, memcpy, memset)
  std::int64_t collective_kernels = 0;     // NCCL kernels launched in the step
};

class DeviceTimeline {
 public:
  /// Keeps `event` when it is a device row (category kernel, gpu_memcpy, gpu_memset) or a launch call
  /// with a correlation id (category cuda_runtime / cuda_driver); returns whether it was kept.
  bool add(const Event& event);
  /// Whether the trace holds device kernels (only then is the device timeline used).
  bool has_kernels() const { return has_kernels_; }
  /// One DeviceStep per window (the CPU ProfilerStep#N spans, any order). A device row belongs to the step
  /// in which its launch call started (matched by correlation id), or when no launch was recorded, to the
  /// step in which the row itself started; rows of no step are left out.
  std::vector<DeviceStep> per_step(const std::vector<Interval>& step_windows) const;

 private:
  enum class RowClass : std::uint8_t { kCommunication, kComputation, kOther };
  struct Row {
    Interval time;
    std::int64_t correlation = -1;
    RowClass kind = RowClass::kOther;
  };
  struct Launch {
    std::int64_t correlation = -1;
    std::int64_t start_ns = 0;
  };

  std::vector<Row> rows_;
  std::vector<Launch> launches_;
  bool has_kernels_ = false;
};

}  // namespace cann_debug::plugins::distributed
