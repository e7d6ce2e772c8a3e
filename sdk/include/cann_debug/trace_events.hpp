// One classifier of trace events for every plugin that reads Chrome/Kineto traces (feature extractors,
// reports): which slices are operators, which rows are device work, which CPU calls launch it, and HTA's
// kernel types by name (hta/common/types.py at the commit the references were made with; docs/traces.md
// gives the exact patterns and where one was inferred).
#pragma once

#include <cstdint>
#include <string_view>

#include "cann_debug/messages.hpp"

namespace cann_debug::trace {

// ---- by category (Kineto's `cat`) ---------------------------------------------------------------------
// Kineto's first releases (PyTorch 1.8/1.9) wrote Operator, Kernel, Memcpy, Memset and Runtime: the same.
enum class EventCategory : std::uint8_t {
  kOperator,           // cpu_op (PyTorch), operator and gpu_op (other exporters): operator-level slices
  kKernel,             // kernel: a device kernel
  kMemcpy,             // gpu_memcpy
  kMemset,             // gpu_memset
  kRuntime,            // cuda_runtime, cuda_driver: CPU calls into the device runtime
  kUserAnnotation,     // user_annotation: record_function ranges, ProfilerStep#N
  kGpuUserAnnotation,  // gpu_user_annotation: Kineto's copy of CPU ranges on the GPU rows
  kOther,
};
EventCategory category_of(std::string_view category);

/// Rows of device work: kernels, memcpy and memset.
bool is_device_row(EventCategory category);
bool is_device_row(std::string_view category);

/// Names of PyTorch's ATen operators ("aten::..."), the operators of traces without categories.
bool is_framework_operator(std::string_view name);

/// Complete ('X') events with a start and a non-negative duration that are operators: an operator-level
/// or kernel category, or an ATen name (traces without categories); never the profiler's ProfilerStep#N.
bool is_operator_event(const Event& e);

// ---- HTA's kernel types, by name ------------------------------------------------------------------------
/// The order is HTA's bit order in the kernel-type sweep: COMPUTATION = 1, COMMUNICATION = 2, MEMORY = 4.
enum class KernelType : std::uint8_t { kComputation = 0, kCommunication = 1, kMemory = 2, kOther = 3 };
inline constexpr int kSweptKernelTypes = 3;

/// COMMUNICATION if the name matches HTA's (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*) or, case-insensitive,
/// starts with rccl, msccl, hcom_ or hccl, or contains deep_ep::, cross_device_reduce, userbuffers, nvshmem,
/// all(_)reduce, all(_)gather, reduce(_)scatter, all(_)to(_)all or sendrecv (RCCL/MSCCL, Ascend HCCL tasks,
/// DeepEP, vLLM / TensorRT-LLM custom all-reduce, Transformer Engine, NVSHMEM); else MEMORY if it matches
/// (^(hip)?Memcpy)|(^(hip)?Memset)|(^dma), else COMPUTATION unless it matches the non-compute pattern (nccl,
/// Memcpy, Memset, dma, ...Sync, Stream Wait Event, cuda...LaunchKernel, runFunction, hip, job_exe, pe_exe),
/// else OTHER (counted in non_compute_time only).
KernelType kernel_type(std::string_view name);

/// HTA's names: "COMPUTATION", "COMMUNICATION", "MEMORY", "OTHER".
std::string_view kernel_type_name(KernelType t);

/// CPU calls whose kernels enter the launch statistics: cudaLaunchKernel, cudaLaunchKernelExC,
/// cudaMemcpyAsync, cudaMemsetAsync and MTIA's runFunction*.
bool is_launch_call(std::string_view name);

/// Communication kernels the straggler analysis looks at: names starting with "ncclKernel".
bool is_straggler_comm_kernel(std::string_view name);

// ---- mixture of experts ---------------------------------------------------------------------------------
/// The experts' own computation in a mixture-of-experts layer, by name (case-insensitive): grouped GEMMs
/// (Megatron-Core GroupedMLP "GroupedGemm" / grouped_gemm kernels, torch._grouped_mm, Ascend GroupedMatmul /
/// npu_grouped_matmul), fused MoE kernels (fused_moe), and ranges named after an expert ("moe.expert3",
/// "moe_expert", "experts.forward"). Not the router, nor the token dispatch and combine.
bool is_moe_expert_compute(std::string_view name);

}  // namespace cann_debug::trace
