// Cumulative hardware counters (bytes sent, CRC errors, CNPs received) turned into deltas and rates.
// A counter that goes down either wrapped around its width (a 32-bit register near its top) or was reset
// (driver reload, link re-init, counters cleared by a tool): a wrap still gives a delta; a reset gives none
// for that sample and primes the counter again, so a reset never shows up as a huge rate.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace cann_debug::plugins::sampler_support {

enum class CounterChange {
  kPrimed,    // first reading of this counter (or first after a reset): no delta yet
  kAdvanced,  // normal increase (or unchanged)
  kWrapped,   // went down from near the top of its width: delta counted across the wrap
  kReset,     // went down otherwise: no delta, primed again
};

struct CounterDelta {
  CounterChange change = CounterChange::kPrimed;
  std::uint64_t delta = 0;  // valid for kAdvanced and kWrapped
  double seconds = 0.0;     // time between the two readings
  double rate_per_second() const { return seconds > 0 ? static_cast<double>(delta) / seconds : 0.0; }
  bool has_delta() const { return change == CounterChange::kAdvanced || change == CounterChange::kWrapped; }
};

/// The delta between two readings of a counter `width_bits` wide (1..64). A decrease counts as a wrap
/// when the earlier reading was in the top quarter of the range and the later one in the bottom quarter
/// (a wrap within one sample interval); any other decrease is a reset.
CounterDelta counter_delta(std::uint64_t before, std::uint64_t after, unsigned width_bits);

/// For counters whose width is not known (Linux RDMA counters are 64-bit, or 32-bit on older drivers and
/// firmware): 32 while both readings fit in 32 bits, else 64. A 64-bit counter reset from the top quarter
/// of the 32-bit range then reads as a wrap (a delta below 2^30), never as a huge spike.
inline unsigned infer_counter_width(std::optional<std::uint64_t> previous, std::uint64_t value) {
  constexpr std::uint64_t kMax32 = 0xffffffffULL;
  return previous && *previous <= kMax32 && value <= kMax32 ? 32 : 64;
}

/// Remembers the last reading of each counter by key (e.g. "mlx5_0/1/port_xmit_data").
class CounterTracker {
 public:
  /// Records `value` read at `time_ns` and returns the change since the previous reading of `key`.
  CounterDelta update(const std::string& key, std::uint64_t value, std::int64_t time_ns,
                      unsigned width_bits = 64);
  /// The last reading of `key`, if any.
  std::optional<std::uint64_t> previous(const std::string& key) const {
    auto it = last_.find(key);
    return it == last_.end() ? std::nullopt : std::optional<std::uint64_t>(it->second.value);
  }
  /// Forgets one counter (e.g. the device went away), or all.
  void forget(const std::string& key) { last_.erase(key); }
  void clear() { last_.clear(); }
  std::size_t size() const { return last_.size(); }

 private:
  struct Reading {
    std::uint64_t value = 0;
    std::int64_t time_ns = 0;
  };
  std::map<std::string, Reading> last_;
};

}  // namespace cann_debug::plugins::sampler_support
