// get_idle_time_breakdown and get_cuda_kernel_launch_stats.
#include <algorithm>
#include <cmath>
#include <numeric>
#include <unordered_map>

#include "hta_analyses.hpp"

namespace cann_debug::plugins::hta {

std::vector<StreamIdle> idle_time_breakdown(const Frame& f, double consecutive_kernel_delay) {
  std::vector<std::int64_t> order;  // streams in order of appearance
  std::unordered_map<std::int64_t, std::vector<const GpuRow*>> by_stream;
  for (const auto& g : f.gpu) {
    if (g.cuda_sync) continue;
    auto [it, inserted] = by_stream.try_emplace(g.stream);
    if (inserted) order.push_back(g.stream);
    it->second.push_back(&g);
  }
  std::vector<StreamIdle> out;
  for (const std::int64_t stream : order) {
    auto& rows = by_stream[stream];
    std::stable_sort(rows.begin(), rows.end(),
                     [](const GpuRow* a, const GpuRow* b) { return a->ts < b->ts; });
    StreamIdle s;
    s.stream = stream;
    for (std::size_t k = 1; k < rows.size(); ++k) {
      const std::int64_t prev_end = rows[k - 1]->end;
      const std::int64_t gap = rows[k]->ts - prev_end;
      const CpuRow* launch = f.launch(*rows[k]);
      IdleCategory* cat = &s.other;
      if (launch != nullptr && launch->ts > prev_end)
        cat = &s.host_wait;
      else if (static_cast<double>(gap) < consecutive_kernel_delay)
        cat = &s.kernel_wait;
      cat->time += gap;
      ++cat->count;
    }
    out.push_back(s);
  }
  return out;
}

Describe describe(std::vector<double> v) {
  Describe d;
  d.count = static_cast<std::int64_t>(v.size());
  if (v.empty()) return d;
  std::sort(v.begin(), v.end());
  const double n = static_cast<double>(v.size());
  d.mean = std::accumulate(v.begin(), v.end(), 0.0) / n;
  double ss = 0;
  for (double x : v) ss += (x - d.mean) * (x - d.mean);
  d.std = v.size() > 1 ? std::sqrt(ss / (n - 1)) : std::nan("");
  auto quantile = [&](double q) {  // numpy's default "linear" method
    const double pos = q * (n - 1);
    const auto lo = static_cast<std::size_t>(std::floor(pos));
    const std::size_t hi = std::min(lo + 1, v.size() - 1);
    return v[lo] + (v[hi] - v[lo]) * (pos - static_cast<double>(lo));
  };
  d.min = v.front();
  d.p50 = quantile(0.5);
  d.p90 = quantile(0.9);
  d.p99 = quantile(0.99);
  d.max = v.back();
  return d;
}

LaunchStats launch_stats(const Frame& f, double runtime_cutoff, double launch_delay_cutoff) {
  // Correlation ids of launch calls (HTA: rows named cudaLaunchKernel, ...), then every kept CPU row and
  // every GPU row with such an id, joined on it.
  std::unordered_map<std::int64_t, std::vector<const CpuRow*>> cpu;
  std::unordered_map<std::int64_t, bool> launches;
  for (const auto& c : f.cpu_corr) {
    if (!c.kept) continue;
    cpu[c.corr].push_back(&c);
  }
  for (const auto& [corr, rows] : cpu)
    for (const CpuRow* c : rows)
      if (is_launch_call(f.names->name(c->name))) launches[corr] = true;
  LaunchStats s;
  std::vector<double> cpu_dur, gpu_dur, delay;
  for (const auto& g : f.gpu) {
    if (g.corr < 0 || !launches.count(g.corr)) continue;
    for (const CpuRow* c : cpu[g.corr]) {
      const std::int64_t d = std::max<std::int64_t>(0, g.ts - (c->ts + c->dur()));
      cpu_dur.push_back(static_cast<double>(c->dur()));
      gpu_dur.push_back(static_cast<double>(g.dur()));
      delay.push_back(static_cast<double>(d));
      if (static_cast<double>(c->dur()) <= runtime_cutoff && g.dur() < c->dur()) ++s.short_kernels;
      if (static_cast<double>(c->dur()) > runtime_cutoff) ++s.runtime_outliers;
      if (static_cast<double>(d) > launch_delay_cutoff) ++s.launch_delay_outliers;
      s.longest_delays.emplace_back(g.name, d);
    }
  }
  s.n = static_cast<std::int64_t>(delay.size());
  std::stable_sort(s.longest_delays.begin(), s.longest_delays.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  if (s.longest_delays.size() > 3) s.longest_delays.resize(3);
  s.cpu_duration = describe(std::move(cpu_dur));
  s.gpu_duration = describe(std::move(gpu_dur));
  s.launch_delay = describe(std::move(delay));
  return s;
}

}  // namespace cann_debug::plugins::hta
