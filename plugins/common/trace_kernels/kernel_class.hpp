// How HTA classifies GPU kernels and CPU launch calls, by name (hta/common/types.py and utils at the commit
// the references were made with; see docs/traces.md for the exact patterns and where one was inferred).
#pragma once

#include <cstdint>
#include <string_view>

namespace cann_debug::plugins::hta {

/// The order is HTA's bit order in the kernel-type sweep: COMPUTATION = 1, COMMUNICATION = 2, MEMORY = 4.
enum class KernelType : std::uint8_t { kComputation = 0, kCommunication = 1, kMemory = 2, kOther = 3 };
inline constexpr int kSweptKernelTypes = 3;

/// COMMUNICATION if the name matches (^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*), else MEMORY if it matches
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

}  // namespace cann_debug::plugins::hta
