// The first of the reader's two passes: everything that must be known before the first event is emitted but
// may sit anywhere in the file: the top-level members (distributedInfo, baseTimeNanoseconds,
// deviceProperties, ...; Kineto may write them after traceEvents) and the ProfilerStep#N spans (written after
// the events they contain). Only events whose bytes contain "ProfilerStep" are parsed; the rest are only
// delimited.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "step_spans.hpp"
#include "trace_scanner.hpp"

namespace cann_debug::plugins::chrome_trace {

struct Prescan {
  TraceScanner::Layout layout = TraceScanner::Layout::kUnknown;
  nlohmann::json metadata = nlohmann::json::object();  // top-level members up to 64 KiB each
  StepSpans steps;
  bool first_ts_seen = false;
  std::int64_t first_ts_ns = 0;  // file clock
  bool ts_strings = false;       // the first timed event had a string ts (Ascend)
  bool string_pids = false;      // the first event had a string pid (PyTorch's legacy exporter)
  std::uint64_t events = 0;
  bool compressed = false;
  /// Where the structure broke, if it did; the main pass reports it after the events before it.
  std::optional<std::string> error;
};

/// Runs the pre-scan. Throws std::runtime_error only when the file cannot be opened.
Prescan prescan_trace(const std::string& path, const ScanLimits& limits);

}  // namespace cann_debug::plugins::chrome_trace
