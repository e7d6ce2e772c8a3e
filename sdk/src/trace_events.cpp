#include "cann_debug/trace_events.hpp"

#include <cctype>

#include "cann_debug/reader/text.hpp"

namespace cann_debug::trace {
namespace {

bool starts(std::string_view s, std::string_view prefix) {
  return s.substr(0, prefix.size()) == prefix;
}
bool has(std::string_view s, std::string_view part) {
  return s.find(part) != std::string_view::npos;
}

// Python's re.match anchors at the start only, so "(.*x)" is "contains x" and "(cuda.*LaunchKernel)" is
// "starts with cuda and contains LaunchKernel after it".
bool non_compute(std::string_view n) {
  if (starts(n, "nccl") || has(n, "Memcpy") || has(n, "Memset") || has(n, "dma") || has(n, "Sync"))
    return true;
  if (starts(n, "Stream Wait Event") || starts(n, "runFunction") || starts(n, "hip")) return true;
  if (starts(n, "job_exe") || starts(n, "pe_exe")) return true;
  return starts(n, "cuda") && n.find("LaunchKernel", 4) != std::string_view::npos;
}

}  // namespace

EventCategory category_of(std::string_view category) {
  // Kineto's first releases (PyTorch 1.8/1.9, the TensorBoard plugin's samples) wrote "Operator", "Kernel",
  // "Memcpy", "Memset" and "Runtime"; later ones the lower-case names below.
  if (!category.empty() && std::isupper(static_cast<unsigned char>(category[0]))) {
    using plugins::readers::iequals;
    if (iequals(category, "operator")) return EventCategory::kOperator;
    if (iequals(category, "kernel")) return EventCategory::kKernel;
    if (iequals(category, "memcpy")) return EventCategory::kMemcpy;
    if (iequals(category, "memset")) return EventCategory::kMemset;
    if (iequals(category, "runtime")) return EventCategory::kRuntime;
    return EventCategory::kOther;
  }
  const std::string_view c = category;
  if (c == "cpu_op" || c == "operator" || c == "gpu_op") return EventCategory::kOperator;
  if (c == "kernel") return EventCategory::kKernel;
  if (c == "gpu_memcpy") return EventCategory::kMemcpy;
  if (c == "gpu_memset") return EventCategory::kMemset;
  if (c == "cuda_runtime" || c == "cuda_driver") return EventCategory::kRuntime;
  if (c == "user_annotation") return EventCategory::kUserAnnotation;
  if (c == "gpu_user_annotation") return EventCategory::kGpuUserAnnotation;
  return EventCategory::kOther;
}

bool is_device_row(EventCategory c) {
  return c == EventCategory::kKernel || c == EventCategory::kMemcpy || c == EventCategory::kMemset;
}

bool is_device_row(std::string_view category) {
  return is_device_row(category_of(category));
}

bool is_framework_operator(std::string_view name) {
  return starts(name, "aten::");
}

bool is_operator_event(const Event& e) {
  if (e.phase != 'X' || e.duration_ns < 0 || e.start_ns == kNoTimestamp) return false;
  // The profiler's step ranges are annotations (user_annotation in later Kineto, "Operator" in the first).
  if (starts(e.name, "ProfilerStep#")) return false;
  const EventCategory c = category_of(e.category);
  return c == EventCategory::kOperator || c == EventCategory::kKernel || is_framework_operator(e.name);
}

namespace {

// Communication kernels beyond HTA's NCCL/HCCL prefixes: RCCL/MSCCL, Ascend HCCL tasks, DeepEP's
// dispatch/combine, vLLM's and TensorRT-LLM's custom all-reduce, Transformer Engine's userbuffers,
// NVSHMEM, and kernels named after a collective (case-insensitive).
bool other_communication(std::string_view n) {
  using plugins::readers::icontains, plugins::readers::istarts_with;
  if (istarts_with(n, "rccl") || istarts_with(n, "msccl") || istarts_with(n, "hcom_") ||
      istarts_with(n, "hccl"))
    return true;
  for (std::string_view part :
       {"deep_ep::", "cross_device_reduce", "userbuffers", "nvshmem", "allreduce", "all_reduce", "allgather",
        "all_gather", "reducescatter", "reduce_scatter", "alltoall", "all_to_all", "sendrecv"})
    if (icontains(n, part)) return true;
  return false;
}

}  // namespace

KernelType kernel_type(std::string_view n) {
  if (starts(n, "nccl") || starts(n, "hip") || starts(n, "hccl") || has(n, "ncclKernel") ||
      other_communication(n))
    return KernelType::kCommunication;
  if (starts(n, "Memcpy") || starts(n, "hipMemcpy") || starts(n, "Memset") || starts(n, "hipMemset") ||
      starts(n, "dma"))
    return KernelType::kMemory;
  return non_compute(n) ? KernelType::kOther : KernelType::kComputation;
}

std::string_view kernel_type_name(KernelType t) {
  switch (t) {
    case KernelType::kComputation:
      return "COMPUTATION";
    case KernelType::kCommunication:
      return "COMMUNICATION";
    case KernelType::kMemory:
      return "MEMORY";
    case KernelType::kOther:
      return "OTHER";
  }
  return "OTHER";
}

bool is_launch_call(std::string_view n) {
  return n == "cudaLaunchKernel" || n == "cudaLaunchKernelExC" || n == "cudaMemcpyAsync" ||
         n == "cudaMemsetAsync" || starts(n, "runFunction");
}

bool is_straggler_comm_kernel(std::string_view n) {
  return starts(n, "ncclKernel");
}

bool is_moe_expert_compute(std::string_view n) {
  static constexpr std::string_view kParts[] = {
      "groupedgemm", "grouped_gemm", "grouped_mm", "groupedmatmul",   "grouped_matmul",
      "fused_moe",   "moe.expert",   "moe_expert", "experts.forward", "expert_forward"};
  const std::string_view head = n.substr(0, 256);
  for (std::string_view p : kParts)
    if (plugins::readers::icontains(head, p)) return true;
  return false;
}

}  // namespace cann_debug::trace
