#include "rank_bars.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <optional>
#include <string>

namespace cann_debug::report {
namespace {

struct RankFigures {
  std::optional<double> step, forward, backward_compute, optimizer, exposed, collective, outside, free_share,
      kernel_compute;
};

long rank_number(const std::string& rank) {
  long n = -1;
  std::from_chars(rank.data(), rank.data() + rank.size(), n);
  return n;
}

}  // namespace

std::vector<RankBar> rank_bars(const std::vector<FeatureSet>& sets) {
  std::map<std::string, RankFigures> ranks;
  for (const auto& set : sets)
    for (const auto& f : set.features) {
      auto it = f.labels.find("rank");
      if (it == f.labels.end() || !std::isfinite(f.value)) continue;
      RankFigures& r = ranks[it->second];
      if (f.name == "rank.step_time")
        r.step = f.value;
      else if (f.name == "rank.forward_time")
        r.forward = f.value;
      else if (f.name == "rank.backward_compute_time")
        r.backward_compute = f.value;
      else if (f.name == "rank.optimizer_time")
        r.optimizer = f.value;
      else if (f.name == "rank.exposed_collective_time")
        r.exposed = f.value;
      else if (f.name == "rank.collective_time")
        r.collective = f.value;
      else if (f.name == "rank.outside_model_time")
        r.outside = f.value;
      else if (f.name == "rank.free_time_share")
        r.free_share = f.value;
      else if (f.name == "rank.kernel_compute_time")
        r.kernel_compute = f.value;
    }
  std::vector<RankBar> bars;
  for (const auto& [rank, r] : ranks) {
    if (!r.step || *r.step <= 0) continue;
    RankBar bar;
    bar.rank = rank;
    bar.step_ms = *r.step;
    const double free = r.outside ? *r.outside : r.free_share ? *r.free_share * bar.step_ms : 0.0;
    bar.free_ms = std::clamp(free, 0.0, bar.step_ms);
    if (r.kernel_compute) {
      // Measured on the device: free is the GPU's idle time, compute its compute kernels, and the rest of
      // its busy time communication (and copies) that compute did not hide.
      bar.compute_ms = std::clamp(*r.kernel_compute, 0.0, bar.step_ms - bar.free_ms);
      bar.communication_ms = bar.step_ms - bar.free_ms - bar.compute_ms;
    } else if (r.forward && r.backward_compute && r.optimizer &&
               *r.forward + *r.backward_compute + *r.optimizer > 0) {
      // The model's own work is measured: the rest of the step is communication and waiting for the others.
      bar.compute_ms =
          std::clamp(*r.forward + *r.backward_compute + *r.optimizer, 0.0, bar.step_ms - bar.free_ms);
      bar.communication_ms = bar.step_ms - bar.free_ms - bar.compute_ms;
    } else {
      const double communication = r.collective ? *r.collective : r.exposed.value_or(0.0);
      bar.communication_ms = std::clamp(communication, 0.0, bar.step_ms - bar.free_ms);
      bar.compute_ms = bar.step_ms - bar.free_ms - bar.communication_ms;
    }
    bars.push_back(bar);
  }
  std::stable_sort(bars.begin(), bars.end(), [](const RankBar& a, const RankBar& b) {
    const long x = rank_number(a.rank), y = rank_number(b.rank);
    return x != y ? x < y : a.rank < b.rank;
  });
  return bars;
}

}  // namespace cann_debug::report
