#include "hta_frame.hpp"

#include <algorithm>
#include <unordered_set>

#include "hta_time.hpp"

namespace cann_debug::plugins::hta {

bool Frame::keeps_cpu(std::int64_t ts) const {
  if (!filtered) return true;
  return include_last ? ts <= last_step_end : ts < last_step_start;
}

const CpuRow* Frame::launch(const GpuRow& g) const {
  if (g.corr < 0) return nullptr;
  const auto it = launch_of.find(g.corr);
  if (it == launch_of.end()) return nullptr;
  const CpuRow& c = cpu_corr[it->second];
  return c.kept ? &c : nullptr;
}

Frame build_frame(const RankTrace& t, const NameTable& names, const FrameOptions& options) {
  Frame f;
  f.names = &names;
  f.rank = t.rank;
  f.origin_ns = t.origin_ns;
  f.include_last = options.include_last_profiler_step;
  auto round = [&](std::int64_t start_ns, std::int64_t dur_ns) {
    const UsSpan s = hta_round(start_ns - t.origin_ns, dur_ns);
    return Interval{s.ts, s.end};
  };

  f.cpu.reserve(t.cpu.size());
  std::int64_t cpu_min = INT64_MAX, cpu_max_end = INT64_MIN;
  for (const auto& s : t.cpu) {
    const Interval iv = round(s.start_ns, s.dur_ns);
    f.cpu.push_back(iv);
    cpu_min = std::min(cpu_min, iv.ts);
    cpu_max_end = std::max(cpu_max_end, iv.end);
  }
  for (const auto& s : t.steps) {
    const Interval iv = round(s.start_ns, s.dur_ns);
    f.steps.push_back({s.index, iv.ts, iv.end, s.step, true});
  }

  // Trace._filter_irrelevant_gpu_kernels: keep CPU rows before the last ProfilerStep (or up to its end), and
  // the GPU rows launched by a kept CPU row.
  f.filtered = options.filter_steps && !t.cpu.empty();
  if (f.filtered) {
    if (!f.steps.empty()) {
      f.last_step_start = INT64_MIN;
      f.last_step_end = INT64_MIN;
      for (const auto& s : f.steps) {
        f.last_step_start = std::max(f.last_step_start, s.ts);
        f.last_step_end = std::max(f.last_step_end, s.end);
      }
    } else {
      f.last_step_start = cpu_min;
      f.last_step_end = cpu_max_end;
    }
    for (auto& s : f.steps) s.kept = f.keeps_cpu(s.ts);
  }

  std::unordered_set<std::int64_t> kept_corr;
  f.cpu_corr.reserve(t.cpu_corr.size());
  for (const auto& r : t.cpu_corr) {
    const Interval iv = round(r.start_ns, r.dur_ns);
    const bool kept = f.keeps_cpu(iv.ts);
    f.cpu_corr.push_back({r.index, iv.ts, iv.end, r.corr, r.name, kept});
    f.launch_of[r.corr] = f.cpu_corr.size() - 1;  // the last one wins, as pandas' .loc assignment does
    if (kept) kept_corr.insert(r.corr);
  }
  bool uncorrelated_cpu_kept = false;
  if (t.first_uncorrelated_cpu_ns != INT64_MAX)
    uncorrelated_cpu_kept = f.keeps_cpu(round(t.first_uncorrelated_cpu_ns, 0).ts);

  f.gpu.reserve(t.gpu.size());
  std::unordered_map<std::uint32_t, KernelType> types;
  for (const auto& r : t.gpu) {
    if (f.filtered && !(r.corr >= 0 ? kept_corr.count(r.corr) > 0 : uncorrelated_cpu_kept)) continue;
    auto [it, inserted] = types.try_emplace(r.name, KernelType::kOther);
    if (inserted) it->second = kernel_type(names.name(r.name));
    const Interval iv = round(r.start_ns, r.dur_ns);
    f.gpu.push_back({r.index, iv.ts, iv.end, r.stream, r.corr, r.name, it->second, r.cuda_sync});
  }
  return f;
}

}  // namespace cann_debug::plugins::hta
