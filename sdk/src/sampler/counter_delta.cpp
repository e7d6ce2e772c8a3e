#include "cann_debug/sampler/counter_delta.hpp"

#include <limits>

namespace cann_debug::plugins::sampler_support {

CounterDelta counter_delta(std::uint64_t before, std::uint64_t after, unsigned width_bits) {
  CounterDelta d;
  if (width_bits == 0 || width_bits > 64) width_bits = 64;
  const std::uint64_t max =
      width_bits == 64 ? std::numeric_limits<std::uint64_t>::max() : (std::uint64_t{1} << width_bits) - 1;
  if (after >= before) {
    d.change = CounterChange::kAdvanced;
    d.delta = after - before;
    return d;
  }
  const std::uint64_t quarter = max / 4;
  if (before > max - quarter && after <= quarter) {
    d.change = CounterChange::kWrapped;
    d.delta = (max - before) + after + 1;  // counts max -> 0 as one step
    return d;
  }
  d.change = CounterChange::kReset;
  return d;
}

CounterDelta CounterTracker::update(const std::string& key, std::uint64_t value, std::int64_t time_ns,
                                    unsigned width_bits) {
  auto [it, inserted] = last_.try_emplace(key, Reading{value, time_ns});
  if (inserted) return {};
  CounterDelta d = counter_delta(it->second.value, value, width_bits);
  d.seconds = static_cast<double>(time_ns - it->second.time_ns) / 1e9;
  if (d.change == CounterChange::kReset) d.delta = 0;
  it->second = {value, time_ns};
  return d;
}

}  // namespace cann_debug::plugins::sampler_support
