#include "collective_exposure.hpp"

#include <algorithm>
#include <cstdint>
#include <map>

namespace cann_debug::plugins::distributed {

CollectiveExposure exposure_without_waits(const std::vector<std::vector<StepBreakdown>>& ranks) {
  CollectiveExposure total;
  std::size_t device_ranks = 0;
  std::map<std::int64_t, std::vector<const StepBreakdown*>> device_steps;  // by step number
  for (const auto& steps : ranks) {
    const bool device = !steps.empty() && steps.front().device_timeline;
    if (device) ++device_ranks;
    for (const StepBreakdown& b : steps) {
      if (device) {
        device_steps[b.step].push_back(&b);
        continue;
      }
      total.collective_ns += static_cast<double>(b.collective_ns);
      total.exposed_ns += static_cast<double>(b.exposed_collective_ns);
    }
  }
  for (const auto& [step, on_ranks] : device_steps) {
    std::int64_t shortest = 0;
    const bool on_every_rank = device_ranks >= 2 && on_ranks.size() == device_ranks;
    if (on_every_rank)
      shortest = (*std::min_element(on_ranks.begin(), on_ranks.end(), [](const auto* a, const auto* b) {
                   return a->collective_ns < b->collective_ns;
                 }))->collective_ns;
    for (const StepBreakdown* b : on_ranks) {
      const std::int64_t wait = on_every_rank ? b->collective_ns - shortest : 0;
      total.collective_ns += static_cast<double>(b->collective_ns - wait);
      total.exposed_ns += static_cast<double>(std::max<std::int64_t>(0, b->exposed_collective_ns - wait));
    }
  }
  return total;
}

}  // namespace cann_debug::plugins::distributed
