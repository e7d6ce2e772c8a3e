// The top-operator table aggregated from trace events, in bounded memory (one entry per operator name).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/trace_events.hpp"
#include "report_model.hpp"

namespace cann_debug::report {

/// Operators as the SDK's trace classifier says (trace::is_operator_event: complete events of category
/// `cpu_op`, `kernel`, `gpu_op` or `operator`, or named `aten::...` in traces without categories). Per batch,
/// the operators of each (process, thread) are nested by time; an operator's self time is its duration minus
/// that of the operators directly inside it (nesting across batches is not seen). Only per-name totals are
/// kept, never the events.
class OperatorAggregator {
 public:
  void add(const EventBatch& batch);
  /// Rows sorted by self time, largest first; at most `top` rows. Share = self time / all operators' self
  /// time, so the shares of all operators sum to 1 and nested calls are not counted twice.
  std::vector<OperatorRow> rows(std::size_t top) const;
  std::int64_t operator_events() const { return events_; }

 private:
  struct Totals {
    std::int64_t count = 0;
    std::int64_t total_ns = 0;
    std::int64_t self_ns = 0;
  };
  std::map<std::string, Totals> totals_;
  std::int64_t events_ = 0;
};

}  // namespace cann_debug::report
