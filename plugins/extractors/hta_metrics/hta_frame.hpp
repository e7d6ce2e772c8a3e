// One rank's trace as HTA sees it after loading: integer microseconds (hta_round), CPU-to-GPU links by
// correlation id, and the last-ProfilerStep filter (Trace._filter_irrelevant_gpu_kernels).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "cann_debug/trace_events.hpp"
#include "intervals.hpp"
#include "rank_trace.hpp"

namespace cann_debug::plugins::hta {

// The SDK's trace classifier, under the names the HTA code reads them by.
using trace::is_launch_call;
using trace::is_straggler_comm_kernel;
using trace::kernel_type;
using trace::kernel_type_name;
using trace::KernelType;
using trace::kSweptKernelTypes;

struct GpuRow {
  std::int64_t index;
  std::int64_t ts;   // us
  std::int64_t end;  // us
  std::int64_t stream;
  std::int64_t corr;
  std::uint32_t name;
  KernelType type;
  bool cuda_sync;
  std::int64_t dur() const { return end - ts; }
};

struct CpuRow {
  std::int64_t index;
  std::int64_t ts;
  std::int64_t end;
  std::int64_t corr;
  std::uint32_t name;
  bool kept;
  std::int64_t dur() const { return end - ts; }
};

struct StepRow {
  std::int64_t index;
  std::int64_t ts;
  std::int64_t end;
  std::int64_t step;
  bool kept;
};

struct FrameOptions {
  bool include_last_profiler_step = true;
  bool filter_steps = false;  // HTA filters only when the job has at least two distinct ProfilerStep names
};

struct Frame {
  const NameTable* names = nullptr;
  std::int32_t rank = 0;
  std::int64_t origin_ns = 0;
  std::vector<GpuRow> gpu;  // kept GPU rows, in stream order
  std::vector<CpuRow>
      cpu_corr;                // correlated CPU rows (all of them; `kept` says whether the filter kept them)
  std::vector<StepRow> steps;  // ProfilerStep rows in stream order
  std::vector<Interval> cpu;   // every CPU row (for the straggler window)
  /// corr -> the last CPU row (in stream order) with that correlation id, before filtering (HTA's
  /// index_correlation of a GPU row).
  std::unordered_map<std::int64_t, std::size_t> launch_of;
  bool filtered = false;
  std::int64_t last_step_start = 0;
  std::int64_t last_step_end = 0;
  bool include_last = true;

  /// Whether the step filter keeps a CPU row starting at `ts` (us).
  bool keeps_cpu(std::int64_t ts) const;
  /// The kept launching CPU row of a GPU row, or nullptr.
  const CpuRow* launch(const GpuRow& g) const;
  /// ns on the reader's clock of an HTA microsecond.
  std::int64_t to_ns(std::int64_t us) const { return origin_ns + us * 1000; }
};

Frame build_frame(const RankTrace& trace, const NameTable& names, const FrameOptions& options);

}  // namespace cann_debug::plugins::hta
