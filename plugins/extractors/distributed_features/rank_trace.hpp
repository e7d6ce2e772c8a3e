// What one rank's profiler trace says about each profiled step: how long the step took and how that time
// splits into data loading, the model (forward, backward, optimizer), collective communication (and how
// much of it the step waited for outside the model's own ranges), and time outside all of these.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "device_timeline.hpp"
#include "intervals/interval_set.hpp"

namespace cann_debug::plugins::distributed {

/// One ProfilerStep#N of one rank; all times in ns.
struct StepBreakdown {
  std::int64_t step = -1;
  TimestampNs start_ns = kNoTimestamp;
  std::int64_t step_ns = 0;              // the ProfilerStep#N span
  std::int64_t data_loading_ns = 0;      // user range data_loading
  std::int64_t forward_ns = 0;           // user range forward (outermost)
  std::int64_t backward_ns = 0;          // user range backward (includes waits for collectives inside it)
  std::int64_t backward_compute_ns = 0;  // autograd nodes inside backward, minus collective calls in them
  std::int64_t optimizer_ns = 0;         // user range optimizer_step
  // Collectives here are the synchronisation of gradients and parameters (all_reduce, broadcast,
  // reduce_scatter, all_gather, ...). An MoE's all_to_all token dispatch is part of its forward and backward
  // computation (the layer cannot go on without the tokens), so it is kept apart in dispatch_ns.
  std::int64_t collective_ns = 0;          // union of collective work spans (gloo:/nccl:/hccl: on any thread)
  std::int64_t exposed_collective_ns = 0;  // collective time outside forward, backward and optimizer_step
  std::int64_t collective_calls = 0;       // c10d:: collective calls issued by the stepping thread
  std::int64_t collective_in_backward_ns = 0;  // collective work while the backward range was open
  std::int64_t outside_model_ns = 0;    // step - (forward u backward u optimizer) - exposed collective time
  std::int64_t forward_compute_ns = 0;  // forward minus the collective work inside it (an MoE's all_to_all)
  std::int64_t dispatch_ns = 0;         // union of all_to_all work spans (MoE token dispatch and combine)
  // Mixture of experts: the experts' own computation (trace::is_moe_expert_compute), from device kernels
  // where the trace has such kernels, else from CPU ranges (the forward's expert ranges); 0 = no MoE seen.
  std::int64_t expert_ns = 0;
  bool expert_on_device = false;

  // From the device timeline (traces with GPU kernels); then the collective fields above are the device
  // ones: NCCL kernel time, its part not overlapped by compute kernels, NCCL kernels per step, and
  // outside_model_ns is the GPU's idle time in the step.
  bool device_timeline = false;
  std::int64_t kernel_compute_ns = 0;  // union of compute kernels launched in the step

  /// The work the rank's own samples cause: compute kernels on a GPU, else forward + backward compute.
  std::int64_t compute_ns() const {
    return device_timeline ? kernel_compute_ns : forward_ns + backward_compute_ns;
  }
};

/// Collects the events of one rank that matter here (everything else is dropped as it arrives) and
/// breaks each profiled step down at the end.
class RankTrace {
 public:
  void add(const Event& event);
  /// One breakdown per ProfilerStep#N span, in step order.
  std::vector<StepBreakdown> steps() const;
  bool empty() const { return step_spans_.empty(); }
  /// Whether the steps are measured on the device timeline (the trace holds GPU kernels).
  bool has_device_timeline() const { return device_.has_kernels(); }
  const std::string& source() const { return source_; }
  void set_source(const std::string& path) {
    if (source_.empty()) source_ = path;
  }

 private:
  struct Span {
    std::int64_t tid = -1;
    Interval time;
  };
  struct StepSpan {
    std::int64_t step = -1;
    std::int64_t tid = -1;
    Interval time;
  };

  std::vector<StepSpan> step_spans_;
  std::map<std::string, std::vector<Span>, std::less<>> ranges_;  // user ranges by name
  std::vector<Span> collective_work_;
  std::vector<Span> collective_calls_;
  std::vector<Span> dispatch_work_;  // all_to_all work spans
  std::vector<Span> autograd_nodes_;
  std::vector<Span> expert_cpu_;     // expert ranges and CPU ops
  std::vector<Span> expert_device_;  // expert kernels
  DeviceTimeline device_;
  std::string source_;
};

/// Whether `name` is a collective's work span (the transfer itself, usually on a backend thread).
bool is_collective_work(std::string_view name);
/// Whether `name` is a collective call issued by the framework (c10d::allreduce_, c10d::broadcast_, ...).
bool is_collective_call(std::string_view name);
/// Whether the collective `name` is an all_to_all (gloo:all_to_all, c10d::alltoall_base_, ...): an MoE's
/// token dispatch, not gradient synchronisation.
bool is_all_to_all(std::string_view name);

}  // namespace cann_debug::plugins::distributed
