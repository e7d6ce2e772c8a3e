// The message the throughput benchmark sends through its chains: a tiny payload with its own type id,
// shared by the bench_chain plugin package (host chain) and the benchmark itself (raw oneTBB chain), so
// both chains allocate and share exactly the same payloads.
#pragma once

#include <cstdint>
#include <string_view>

#include <nlohmann/json.hpp>

#include "cann_debug/message.hpp"

namespace cann_debug::bench {

struct BenchTick {
  static constexpr std::string_view type_id = "bench.tick/1";
  std::uint64_t seq = 0;
  double value = 0.0;
};

inline void to_json(nlohmann::json& j, const BenchTick& t) {
  j = {{"seq", t.seq}, {"value", t.value}};
}

/// The envelope message number `seq` of a run: the same in both chains.
inline Envelope make_tick(std::uint64_t seq) {
  CorrelationKey key;
  key.step_id = static_cast<std::int64_t>(seq);
  return Envelope::make<BenchTick>(std::move(key), BenchTick{seq, static_cast<double>(seq) * 0.5});
}

/// Whether `count` messages whose seq values add up to `sum` can be messages 0..n-1, each once.
inline bool tick_checksum_ok(std::uint64_t count, std::uint64_t sum, std::uint64_t n) {
  return count == n && sum == (n == 0 ? 0 : n * (n - 1) / 2);
}

}  // namespace cann_debug::bench
