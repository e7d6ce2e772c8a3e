// get_potential_stragglers (hta/analyzers/straggler.py: late-starting significant NCCL kernels).
#include <algorithm>
#include <cmath>
#include <set>
#include <tuple>

#include "hta_analyses.hpp"

namespace cann_debug::plugins::hta {
namespace {

// HTA's add_iteration: the last ProfilerStep row (in stream order) whose [ts, end) holds `ts`.
std::int64_t iteration_at(const Frame& f, std::int64_t ts) {
  std::int64_t it = -1;
  for (const auto& s : f.steps)
    if (s.ts <= ts && ts < s.end) it = s.step;
  return it;
}

struct Candidate {
  std::int32_t rank;
  std::int64_t stream;
  std::int64_t iteration;
  std::uint32_t name;
  std::int64_t index;
  std::int64_t ts;
  std::int64_t dur;
};

double sample_std(const std::vector<double>& v) {
  if (v.size() < 2) return std::nan("");
  double mean = 0;
  for (double x : v) mean += x;
  mean /= static_cast<double>(v.size());
  double ss = 0;
  for (double x : v) ss += (x - mean) * (x - mean);
  return std::sqrt(ss / static_cast<double>(v.size() - 1));
}

}  // namespace

StragglerResult potential_stragglers(const std::vector<Frame>& frames, const NameTable& names,
                                     int num_candidates, double min_normalized_duration) {
  StragglerResult r;
  const auto k = static_cast<std::size_t>(std::max(1, num_candidates));
  std::set<std::int64_t> valid;
  for (const auto& f : frames)
    for (const auto& s : f.steps)
      if (s.kept && s.step >= 0) valid.insert(s.step);
  if (valid.empty()) {
    r.reason = "no ProfilerStep#N left after the step filter";
    return r;
  }
  // The window of everything in the selected steps, over all ranks.
  std::int64_t t_min = INT64_MAX, t_max = INT64_MIN;
  std::set<std::int64_t> seen_iterations;
  std::vector<Candidate> gpu_rows;
  for (const auto& f : frames) {
    for (const auto& c : f.cpu) {
      if (!f.keeps_cpu(c.ts)) continue;
      const std::int64_t it = iteration_at(f, c.ts);
      if (!valid.count(it)) continue;
      t_min = std::min(t_min, c.ts);
      t_max = std::max(t_max, c.end);
      seen_iterations.insert(it);
    }
    for (const auto& g : f.gpu) {
      if (g.stream <= 0 || g.corr < 0) continue;
      const auto link = f.launch_of.find(g.corr);
      if (link == f.launch_of.end() || f.cpu_corr[link->second].index <= 0) continue;
      const std::int64_t it = iteration_at(f, f.cpu_corr[link->second].ts);
      if (!valid.count(it)) continue;
      t_min = std::min(t_min, g.ts);
      t_max = std::max(t_max, g.end);
      seen_iterations.insert(it);
      gpu_rows.push_back({f.rank, g.stream, it, g.name, g.index, g.ts, g.dur()});
    }
  }
  if (seen_iterations.empty() || t_max <= t_min) {
    r.reason = "no events in the profiler steps";
    return r;
  }
  const double mean_iter = static_cast<double>(t_max - t_min) / static_cast<double>(seen_iterations.size());
  const double min_duration = mean_iter * min_normalized_duration;
  // The last long communication kernel of each (rank, stream, iteration, kernel).
  std::map<std::tuple<std::int32_t, std::int64_t, std::int64_t, std::uint32_t>, Candidate> last;
  for (const auto& c : gpu_rows) {
    if (c.iteration <= 0 || static_cast<double>(c.dur) < min_duration) continue;
    if (!is_straggler_comm_kernel(names.name(c.name))) continue;
    auto& slot = last.try_emplace({c.rank, c.stream, c.iteration, c.name}, c).first->second;
    if (c.index >= slot.index) slot = c;
  }
  if (last.empty()) {
    r.reason = "no ncclKernel* kernel of at least min_normalized_duration of an iteration";
    return r;
  }
  // The (stream, kernel) whose normalised duration varies most across ranks, on average over iterations.
  std::map<std::tuple<std::int64_t, std::int64_t, std::uint32_t>, std::vector<double>> durations;
  for (const auto& [key, c] : last)
    durations[{c.stream, c.iteration, c.name}].push_back(static_cast<double>(c.dur) / mean_iter);
  std::map<std::pair<std::int64_t, std::string>, std::pair<double, int>>
      spread;  // (stream, name) -> (sum, n)
  std::map<std::pair<std::int64_t, std::string>, std::uint32_t> name_of;
  for (const auto& [key, v] : durations) {
    const auto& [stream, iteration, name] = key;
    const std::pair<std::int64_t, std::string> sk{stream, names.name(name)};
    name_of[sk] = name;
    auto& acc = spread[sk];
    const double s = sample_std(v);
    if (!std::isnan(s)) {
      acc.first += s;
      ++acc.second;
    }
  }
  const std::pair<std::int64_t, std::string>* best = nullptr;
  double best_value = -1;
  for (const auto& [sk, acc] : spread) {
    if (acc.second == 0) continue;
    const double mean = acc.first / acc.second;
    if (best == nullptr || mean > best_value) {
      best = &sk;
      best_value = mean;
    }
  }
  if (best == nullptr) {
    r.reason = "no communication kernel appears on two ranks in the same iteration";
    return r;
  }
  r.stream = best->first;
  r.kernel = best->second;
  const std::uint32_t best_name = name_of[*best];
  // Per iteration, the k latest starters (normalised start time) get a vote.
  std::map<std::int64_t, std::vector<std::pair<double, std::int32_t>>> by_iteration;
  for (const auto& [key, c] : last)
    if (c.stream == r.stream && c.name == best_name)
      by_iteration[c.iteration].emplace_back(static_cast<double>(c.ts - t_min) / mean_iter, c.rank);
  for (auto& [iteration, rows] : by_iteration) {
    r.iterations.push_back(iteration);
    std::vector<double> metrics;
    for (const auto& [m, rank] : rows) metrics.push_back(m);
    std::sort(metrics.begin(), metrics.end(), std::greater<>());
    const double threshold = metrics[std::min(k, metrics.size()) - 1];
    for (const auto& [m, rank] : rows) r.votes[rank] += m >= threshold ? 1 : 0;
  }
  std::vector<std::pair<std::int64_t, std::int32_t>> ranked;
  for (const auto& [rank, v] : r.votes) ranked.emplace_back(v, rank);
  std::stable_sort(ranked.begin(), ranked.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t i = 0; i < ranked.size() && i < k; ++i) r.stragglers.push_back(ranked[i].second);
  r.computed = true;
  return r;
}

}  // namespace cann_debug::plugins::hta
