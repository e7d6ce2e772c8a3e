// HTA's analyses on prepared frames (notes/anchors-traces.md §1.2), each a pure function. Times in us.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "hta_frame.hpp"

namespace cann_debug::plugins::hta {

// ---- get_temporal_breakdown ------------------------------------------------------------------------------
struct TemporalBreakdown {
  std::int64_t idle_time = 0;
  std::int64_t compute_time = 0;
  std::int64_t non_compute_time = 0;      // clamped at 0 (HTA asserts >= 0 instead)
  std::int64_t non_compute_time_raw = 0;  // kernel_time - compute_time - idle_time, as computed
  std::int64_t kernel_time = 0;           // last merged end - first merged start
  std::int64_t first_ts = 0;
  std::int64_t last_end = 0;
  bool clamped() const { return non_compute_time_raw < 0; }
};
/// Over all GPU rows; nullopt when the rank has none (HTA fails there).
std::optional<TemporalBreakdown> temporal_breakdown(const Frame& f);

// ---- get_gpu_kernel_breakdown: kernel-type time ---------------------------------------------------------
/// Time in each combination of COMPUTATION, COMMUNICATION and MEMORY, keyed by HTA's label
/// ("COMPUTATION", "COMPUTATION overlapping COMMUNICATION", ...).
std::map<std::string, std::int64_t> kernel_type_time(const Frame& f);

// ---- get_comm_comp_overlap --------------------------------------------------------------------------------
/// % of the merged communication time during which computation runs too; nullopt without communication.
std::optional<double> comm_comp_overlap_pctg(const Frame& f);

// ---- get_idle_time_breakdown ------------------------------------------------------------------------------
struct IdleCategory {
  std::int64_t time = 0;
  std::int64_t count = 0;
};
struct StreamIdle {
  std::int64_t stream = 0;
  IdleCategory host_wait, kernel_wait, other;
  std::int64_t total() const { return host_wait.time + kernel_wait.time + other.time; }
};
/// Per stream (in order of appearance), kernels sorted by start: the gap before each is host_wait when its
/// launch started after the previous kernel ended, else kernel_wait when shorter than
/// `consecutive_kernel_delay`, else other. CUDA sync rows are left out.
std::vector<StreamIdle> idle_time_breakdown(const Frame& f, double consecutive_kernel_delay);

// ---- get_cuda_kernel_launch_stats
// --------------------------------------------------------------------------
struct Describe {  // pandas' describe(): sample std, linear-interpolation percentiles
  std::int64_t count = 0;
  double mean = 0, std = 0, min = 0, p50 = 0, p90 = 0, p99 = 0, max = 0;
};
Describe describe(std::vector<double> values);

struct LaunchStats {
  std::int64_t n = 0;
  std::int64_t short_kernels = 0;          // cpu <= runtime_cutoff and gpu < cpu
  std::int64_t runtime_outliers = 0;       // cpu > runtime_cutoff
  std::int64_t launch_delay_outliers = 0;  // launch_delay > launch_delay_cutoff
  Describe cpu_duration, gpu_duration, launch_delay;
  std::vector<std::pair<std::uint32_t, std::int64_t>> longest_delays;  // (kernel name, delay), top 3
};
LaunchStats launch_stats(const Frame& f, double runtime_cutoff, double launch_delay_cutoff);

// ---- get_potential_stragglers
// -------------------------------------------------------------------------------
struct StragglerResult {
  bool computed = false;
  std::string reason;                          // why not, when !computed
  std::map<std::int32_t, std::int64_t> votes;  // rank -> iterations in which it was among the late starters
  std::vector<std::int32_t> stragglers;        // top num_candidates ranks by votes
  std::string kernel;                          // the (stream, kernel) pair the metric used
  std::int64_t stream = -1;
  std::vector<std::int64_t> iterations;
};
StragglerResult potential_stragglers(const std::vector<Frame>& frames, const NameTable& names,
                                     int num_candidates, double min_normalized_duration);

}  // namespace cann_debug::plugins::hta
