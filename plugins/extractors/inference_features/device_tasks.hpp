// Where an Ascend device spent its task time, from the ascend_kernel_details records of a profiler folder
// (kernel_details.csv: one row per device task with its Accelerator Core and Duration). It answers whether
// operators fell back to the AI CPU: an operator the AI Core has no kernel for (an unsupported dtype such
// as int64 or double, a dynamic shape, an op the CANN version lacks) runs on the device's few general
// purpose cores instead, often ten to a hundred times slower, and the model's latency follows it.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::inference {

inline constexpr std::string_view kKernelDetailsSchema = "ascend.kernel_details/1";

class DeviceTasks {
 public:
  /// Reads the rows of one kernel_details batch (tasks without a duration are skipped).
  void add(const RecordBatch& batch);
  bool empty() const { return compute_ns_ <= 0.0; }
  /// device.compute_task_ms (task time outside communication), device.aicpu_share (AI CPU task time over
  /// it, with the AI CPU operators of most time as evidence) and device.top_op_share (the operator type of
  /// most task time over it); nothing without a compute task.
  void features(std::vector<Feature>& out) const;

 private:
  double compute_ns_ = 0.0, aicpu_ns_ = 0.0;
  std::map<std::string, double> aicpu_by_type_, by_type_;
  std::string source_;
};

}  // namespace cann_debug::plugins::inference
