// get_temporal_breakdown and the interval sweeps of get_gpu_kernel_breakdown / get_comm_comp_overlap.
#include <string>

#include "hta_analyses.hpp"
#include "intervals.hpp"

namespace cann_debug::plugins::hta {
namespace {

std::vector<Interval> merged_of(const Frame& f, KernelType type) {
  std::vector<Interval> v;
  for (const auto& g : f.gpu)
    if (g.type == type) v.push_back({g.ts, g.end});
  return merge_intervals(std::move(v));
}

}  // namespace

std::optional<TemporalBreakdown> temporal_breakdown(const Frame& f) {
  if (f.gpu.empty()) return std::nullopt;
  std::vector<Interval> all;
  all.reserve(f.gpu.size());
  for (const auto& g : f.gpu) all.push_back({g.ts, g.end});
  const auto merged = merge_intervals(std::move(all));
  TemporalBreakdown t;
  t.first_ts = merged.front().ts;
  t.last_end = merged.back().end;
  t.kernel_time = t.last_end - t.first_ts;
  t.idle_time = t.kernel_time - total_length(merged);
  t.compute_time = total_length(merged_of(f, KernelType::kComputation));
  t.non_compute_time_raw = t.kernel_time - t.compute_time - t.idle_time;
  t.non_compute_time = t.non_compute_time_raw < 0 ? 0 : t.non_compute_time_raw;
  return t;
}

std::map<std::string, std::int64_t> kernel_type_time(const Frame& f) {
  std::vector<std::vector<Interval>> sets;
  for (int i = 0; i < kSweptKernelTypes; ++i) sets.push_back(merged_of(f, static_cast<KernelType>(i)));
  std::map<std::string, std::int64_t> out;
  for (const auto& [mask, time] : sweep_combinations(sets)) {
    std::string label;
    for (int i = 0; i < kSweptKernelTypes; ++i) {
      if ((mask & (1 << i)) == 0) continue;
      if (!label.empty()) label += " overlapping ";
      label += kernel_type_name(static_cast<KernelType>(i));
    }
    if (!label.empty()) out[label] += time;
  }
  return out;
}

std::optional<double> comm_comp_overlap_pctg(const Frame& f) {
  const auto comm = merged_of(f, KernelType::kCommunication);
  const std::int64_t comm_time = total_length(comm);
  if (comm.empty() || comm_time == 0) return std::nullopt;
  const auto time = sweep_combinations({comm, merged_of(f, KernelType::kComputation)});
  const auto both = time.find(3);
  return 100.0 * static_cast<double>(both == time.end() ? 0 : both->second) / static_cast<double>(comm_time);
}

}  // namespace cann_debug::plugins::hta
