// What the reader knows about a trace file as a whole: its format, its clock, its rank. It travels as the
// first event of the stream ("trace_info", phase 'M'), so consumers see it before any timed event.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "cann_debug/messages.hpp"
#include "trace_prescan.hpp"

namespace cann_debug::plugins::chrome_trace {

inline constexpr const char* kTraceInfoName = "trace_info";
inline constexpr const char* kTraceInfoCategory = "cann_debug.metadata";

struct TraceClock {
  std::int64_t origin_ns = 0;  // added to every ts (ns) read from the file
  std::optional<std::int64_t> base_time_ns;
  bool epoch = false;  // false: ns since an unknown origin (e.g. the profiler's start)
};

struct RankChoice {
  std::int32_t rank = -1;
  std::string source = "none";  // "option", "distributedInfo", "file name", "none"
};

TraceClock choose_clock(const Prescan& scan);
RankChoice choose_rank(const Prescan& scan, const std::string& path, std::int64_t option_rank);
/// "kineto", "ascend", "pytorch_legacy" or "chrome_array".
std::string format_name(const Prescan& scan);

Event make_trace_info(const Prescan& scan, const std::string& path, const TraceClock& clock,
                      const RankChoice& rank);

}  // namespace cann_debug::plugins::chrome_trace
