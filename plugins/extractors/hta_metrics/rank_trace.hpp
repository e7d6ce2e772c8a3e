// What the extractor keeps of one rank's events until flush: compact rows of the events HTA analyses
// (complete 'X' events with a category), never the events themselves. GPU rows and correlated CPU rows carry
// names and ids; every other CPU row is 16 bytes (start, duration) for the step filter and the straggler
// window.
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::hta {

class NameTable {
 public:
  std::uint32_t intern(std::string_view name);
  const std::string& name(std::uint32_t id) const { return names_[id]; }
  std::size_t size() const { return names_.size(); }

 private:
  std::unordered_map<std::string, std::uint32_t> ids_;
  std::vector<std::string> names_;
};

struct RawRow {
  std::int64_t index;     // position of the event in the rank's stream (HTA's "index")
  std::int64_t start_ns;  // as emitted by the reader
  std::int64_t dur_ns;
  std::int64_t stream;  // -1: a CPU row
  std::int64_t corr;    // -1: no correlation id
  std::uint32_t name;
  bool cuda_sync;  // category "cuda_sync" (left out of the idle-time breakdown)
};

struct RawSpan {
  std::int64_t start_ns;
  std::int64_t dur_ns;
};

struct RawStep {
  std::int64_t index;
  std::int64_t start_ns;
  std::int64_t dur_ns;
  std::int64_t step;  // N of ProfilerStep#N, -1 when the name has no number
};

struct RankTrace {
  std::int32_t rank = 0;
  std::int64_t origin_ns = 0;  // the reader's clock origin (trace_info.clock_origin_ns)
  std::int64_t next_index = 0;
  std::vector<RawRow> gpu;                             // stream >= 0, in stream order
  std::vector<RawRow> cpu_corr;                        // CPU rows with a correlation id
  std::vector<RawSpan> cpu;                            // every CPU row
  std::vector<RawStep> steps;                          // CPU rows named ProfilerStep*
  std::int64_t first_uncorrelated_cpu_ns = INT64_MAX;  // earliest CPU row without correlation id
};

/// Where events go: one RankTrace per rank (events without a rank count as rank 0, as HTA loads a single
/// file), and the set of ProfilerStep names seen anywhere.
class TraceStore {
 public:
  void add(const Event& e);
  std::vector<RankTrace*> ranks();
  const NameTable& names() const { return names_; }
  /// Distinct names starting with "ProfilerStep" (HTA filters steps only when there are at least two).
  std::size_t profiler_step_names() const { return step_names_.size(); }
  bool empty() const { return ranks_.empty(); }

 private:
  RankTrace& rank(std::int32_t r);

  std::unordered_map<std::int32_t, RankTrace> ranks_;
  NameTable names_;
  std::set<std::uint32_t> step_names_;
};

/// A non-negative stream from args.stream (an integer, an integral float, a numeric string; HTA's
/// normalize_gpu_stream_numbers) or, for Ascend traces, args["Stream Id"]; -1 otherwise.
std::int64_t stream_of(const nlohmann::json& args);
/// args.correlation as an integer, or -1.
std::int64_t correlation_of(const nlohmann::json& args);

}  // namespace cann_debug::plugins::hta
