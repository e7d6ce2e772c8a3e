// ProfilerStep#N spans of a trace, and which step an event falls in.
//
// A CPU event belongs to step N when its start lies in [start, start + dur) of a ProfilerStep#N span of its
// own process. Device events (GPU/NPU kernels, copies), and events of processes that have no ProfilerStep
// spans (e.g. Ascend's CANN API process), are placed by their start alone, in a span of any process. When
// several spans contain a start, the one that starts last wins.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace cann_debug::plugins::chrome_trace {

/// N of "ProfilerStep#N" (HTA's pattern "ProfilerStep\s*#\s*(\d+)"), or nullopt.
std::optional<std::int64_t> profiler_step_number(std::string_view name);

class StepSpans {
 public:
  void add(const std::string& pid_key, std::int64_t start, std::int64_t end, std::int64_t step);
  /// Sorts the spans; call once after the last add().
  void finalize();

  /// The step of an event starting at `ts` (same clock as the spans), or -1.
  std::int64_t step_of(const std::string& pid_key, bool device, std::int64_t ts) const;

  struct Span {
    std::int64_t start;
    std::int64_t end;
    std::int64_t step;
  };
  /// Spans sorted by start, with the running maximum of their ends for the lookup.
  class List {
   public:
    /// The step of the span (the one that starts last) holding `ts`, or -1.
    std::int64_t find(std::int64_t ts) const;

   private:
    friend class StepSpans;
    void finalize();
    std::vector<Span> spans;
    std::vector<std::int64_t> max_end;  // max end of spans[0..i]
  };

  /// The spans a CPU event of process `pid_key` is placed in: its own, or all when it has none. The reader
  /// looks this up once per process, then calls find() per event.
  const List& spans_for(const std::string& pid_key) const;
  /// Every span: where device events are placed.
  const List& all() const { return all_; }

  bool empty() const { return all_.spans.empty(); }
  /// Step numbers in order of their start.
  std::vector<std::int64_t> steps() const;

 private:
  List all_;
  std::unordered_map<std::string, List> by_pid_;
};

}  // namespace cann_debug::plugins::chrome_trace
