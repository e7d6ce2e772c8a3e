#include "hta_features.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <unordered_map>

#include <fmt/format.h>

namespace cann_debug::plugins::hta {
namespace {

struct Builder {
  const Frame& f;
  FeatureSet& set;
  std::vector<EvidenceRef> base;  // rank and window

  Feature& add(std::string name, double value, std::string unit, Labels extra = {},
               std::vector<EvidenceRef> evidence = {}) {
    Feature ft;
    ft.name = std::move(name);
    ft.value = value;
    ft.unit = std::move(unit);
    ft.labels = std::move(extra);
    ft.labels["rank"] = std::to_string(f.rank);
    ft.evidence = base;
    ft.evidence.insert(ft.evidence.end(), evidence.begin(), evidence.end());
    set.features.push_back(std::move(ft));
    return set.features.back();
  }
};

EvidenceRef operator_ref(const std::string& name) {
  EvidenceRef e;
  e.kind = "operator";
  e.id = name;
  return e;
}

// The `n` kernels with the largest total duration among the rows `keep` selects.
template <typename Pred>
std::vector<EvidenceRef> top_kernels(const Frame& f, Pred keep, std::size_t n = 3) {
  std::unordered_map<std::uint32_t, std::int64_t> total;
  for (const auto& g : f.gpu)
    if (keep(g)) total[g.name] += g.dur();
  std::vector<std::pair<std::uint32_t, std::int64_t>> v(total.begin(), total.end());
  std::sort(v.begin(), v.end(), [&](const auto& a, const auto& b) {
    return a.second != b.second ? a.second > b.second : f.names->name(a.first) < f.names->name(b.first);
  });
  std::vector<EvidenceRef> out;
  for (std::size_t i = 0; i < v.size() && i < n; ++i) out.push_back(operator_ref(f.names->name(v[i].first)));
  return out;
}

std::vector<EvidenceRef> base_evidence(const Frame& f, const std::optional<TemporalBreakdown>& t) {
  EvidenceRef rank;
  rank.kind = "rank";
  rank.id = fmt::format("rank{}", f.rank);
  EvidenceRef window;
  window.kind = "window";
  window.id = "gpu_kernels";
  if (t) {
    window.start_ns = f.to_ns(t->first_ts);
    window.end_ns = f.to_ns(t->last_end);
  }
  for (const auto& s : f.steps) {
    if (!s.kept || s.step < 0) continue;
    window.first_step = window.first_step < 0 ? s.step : std::min(window.first_step, s.step);
    window.last_step = std::max(window.last_step, s.step);
  }
  return {rank, window};
}

void add_temporal(Builder& b, const TemporalBreakdown& t) {
  const auto top = top_kernels(b.f, [](const GpuRow&) { return true; });
  const auto top_compute =
      top_kernels(b.f, [](const GpuRow& g) { return g.type == KernelType::kComputation; });
  const auto top_other = top_kernels(b.f, [](const GpuRow& g) { return g.type != KernelType::kComputation; });
  Labels clamp;
  if (t.clamped()) clamp["clamped"] = "non_compute_time";
  b.add("idle_time", static_cast<double>(t.idle_time), "us", {}, top);
  b.add("compute_time", static_cast<double>(t.compute_time), "us", {}, top_compute);
  b.add("non_compute_time", static_cast<double>(t.non_compute_time), "us", clamp, top_other);
  b.add("kernel_time", static_cast<double>(t.kernel_time), "us", {}, top);
  if (t.kernel_time > 0) {
    const double kt = static_cast<double>(t.kernel_time);
    b.add("idle_time_pctg", 100.0 * static_cast<double>(t.idle_time) / kt, "percent", {}, top);
    b.add("compute_time_pctg", 100.0 * static_cast<double>(t.compute_time) / kt, "percent", {}, top_compute);
    b.add("non_compute_time_pctg", 100.0 * static_cast<double>(t.non_compute_time) / kt, "percent", clamp,
          top_other);
  }
  if (t.clamped())  // HTA asserts here; we report how negative it was
    b.add("non_compute_time_clamped", static_cast<double>(t.non_compute_time_raw), "us", clamp, top);
}

void add_kernel_types(Builder& b) {
  const auto time = kernel_type_time(b.f);
  std::int64_t total = 0;
  for (const auto& [label, t] : time) total += t;
  for (const auto& [label, t] : time) {
    std::vector<EvidenceRef> ev;
    for (int i = 0; i < kSweptKernelTypes; ++i) {
      const auto type = static_cast<KernelType>(i);
      if (label.find(kernel_type_name(type)) == std::string::npos) continue;
      const auto top = top_kernels(
          b.f, [type](const GpuRow& g) { return g.type == type; }, 1);
      ev.insert(ev.end(), top.begin(), top.end());
    }
    b.add("kernel_type_breakdown.sum", static_cast<double>(t), "us", {{"kernel_type", label}}, ev);
    if (total > 0)
      b.add("kernel_type_breakdown.percentage", 100.0 * static_cast<double>(t) / static_cast<double>(total),
            "percent", {{"kernel_type", label}}, ev);
  }
  if (const auto overlap = comm_comp_overlap_pctg(b.f))
    b.add("comp_comm_overlap_pctg", *overlap, "percent", {},
          top_kernels(b.f, [](const GpuRow& g) { return g.type == KernelType::kCommunication; }));
}

void add_idle(Builder& b, const MetricsOptions& o) {
  for (const auto& s : idle_time_breakdown(b.f, o.consecutive_kernel_delay_us)) {
    EvidenceRef stream;
    stream.kind = "series";
    stream.id = fmt::format("stream{}", s.stream);
    const std::pair<const char*, const IdleCategory*> cats[] = {
        {"host_wait", &s.host_wait}, {"kernel_wait", &s.kernel_wait}, {"other", &s.other}};
    for (const auto& [name, cat] : cats) {
      Labels l{{"stream", std::to_string(s.stream)}, {"idle_category", name}};
      b.add("idle_time_breakdown.idle_time", static_cast<double>(cat->time), "us", l, {stream});
      b.add("idle_time_breakdown.intervals", static_cast<double>(cat->count), "count", l, {stream});
      if (s.total() != 0)
        b.add("idle_time_breakdown.idle_time_ratio",
              static_cast<double>(cat->time) / static_cast<double>(s.total()), "ratio", l, {stream});
    }
  }
}

void add_launch(Builder& b, const MetricsOptions& o) {
  const LaunchStats s = launch_stats(b.f, o.runtime_cutoff_us, o.launch_delay_cutoff_us);
  std::vector<EvidenceRef> ev;
  for (const auto& [name, delay] : s.longest_delays) ev.push_back(operator_ref(b.f.names->name(name)));
  const std::string p = "cuda_kernel_launch_stats.";
  b.add(p + "n", static_cast<double>(s.n), "count", {}, ev);
  if (s.n == 0) return;
  b.add(p + "short_gpu_kernels", static_cast<double>(s.short_kernels), "count",
        {{"rule", fmt::format("cpu_duration <= {} us and gpu_duration < cpu_duration", o.runtime_cutoff_us)}},
        ev);
  b.add(p + "runtime_outliers", static_cast<double>(s.runtime_outliers), "count",
        {{"rule", fmt::format("cpu_duration > {} us", o.runtime_cutoff_us)}}, ev);
  b.add(p + "launch_delay_outliers", static_cast<double>(s.launch_delay_outliers), "count",
        {{"rule", fmt::format("launch_delay > {} us", o.launch_delay_cutoff_us)}}, ev);
  const std::pair<const char*, const Describe*> cols[] = {{"cpu_duration", &s.cpu_duration},
                                                          {"gpu_duration", &s.gpu_duration},
                                                          {"launch_delay", &s.launch_delay}};
  for (const auto& [col, d] : cols) {
    const std::pair<const char*, double> stats[] = {{"mean", d->mean}, {"std", d->std}, {"min", d->min},
                                                    {"p50", d->p50},   {"p90", d->p90}, {"p99", d->p99},
                                                    {"max", d->max}};
    for (const auto& [stat, value] : stats) {
      if (std::isnan(value)) continue;  // std of a single launch
      b.add(p + col + "." + stat, value, "us", {}, ev);
    }
  }
}

}  // namespace

FeatureSet rank_features(const Frame& f, const MetricsOptions& options) {
  FeatureSet set;
  set.scope = fmt::format("rank {}", f.rank);
  const auto temporal = temporal_breakdown(f);
  Builder b{f, set, base_evidence(f, temporal)};
  if (temporal) add_temporal(b, *temporal);
  add_kernel_types(b);
  add_idle(b, options);
  add_launch(b, options);
  return set;
}

FeatureSet straggler_features(const StragglerResult& r, const std::vector<Frame>& frames) {
  FeatureSet set;
  set.scope = "job";
  EvidenceRef kernel = operator_ref(r.kernel);
  EvidenceRef steps;
  steps.kind = "steps";
  steps.id = fmt::format("stream{}", r.stream);
  if (!r.iterations.empty()) {
    steps.first_step = r.iterations.front();
    steps.last_step = r.iterations.back();
  }
  for (const auto& f : frames) {
    EvidenceRef rank;
    rank.kind = "rank";
    rank.id = fmt::format("rank{}", f.rank);
    const auto it = r.votes.find(f.rank);
    const double votes = it == r.votes.end() ? 0.0 : static_cast<double>(it->second);
    const bool potential = std::find(r.stragglers.begin(), r.stragglers.end(), f.rank) != r.stragglers.end();
    Labels l{{"rank", std::to_string(f.rank)}, {"kernel", r.kernel}, {"stream", std::to_string(r.stream)}};
    set.features.push_back({"straggler.votes", votes, "count", {rank, kernel, steps}, l});
    set.features.push_back(
        {"straggler.is_potential", potential ? 1.0 : 0.0, "bool", {rank, kernel, steps}, l});
  }
  return set;
}

}  // namespace cann_debug::plugins::hta
