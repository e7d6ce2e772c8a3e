// The profiled model calls of a serving trace: per `ProfilerStep#N` span (one served batch), the user
// ranges preprocess / forward / postprocess and the aten operators inside the outermost forward.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::inference {

/// A complete trace slice, as much of an Event as the batch analysis needs.
struct Slice {
  std::string name;
  std::int64_t start_ns = 0;
  std::int64_t duration_ns = 0;
  std::int64_t tid = -1;
  std::int64_t pid = -1;
  std::int64_t end_ns() const { return start_ns + duration_ns; }
};

struct ServedBatch {
  std::int64_t index = -1;          // N of ProfilerStep#N: the served batch in serving order
  std::int64_t preprocess_ns = -1;  // -1 = the range is absent from this step
  std::int64_t forward_ns = -1;
  std::int64_t postprocess_ns = -1;
  std::int64_t busy_ns = -1;        // from the first slice inside the step to the end of the last: the call's
                                    // service without the wait for the next request (-1 = the step is empty)
  std::int64_t operator_count = 0;  // aten:: operators (any depth) inside the outermost forward
  std::int64_t batch_norm_count = 0;                     // aten::batch_norm calls inside it
  std::int64_t operator_covered_ns = 0;                  // forward time covered by outermost aten:: operators
  std::int64_t preprocess_operator_covered_ns = 0;       // preprocess time covered by framework operators
  std::map<std::string, std::int64_t> operator_self_ns;  // aten:: name -> self time inside forward
};

/// Keeps the complete (phase X) slices of event batches; metadata and instants are ignored.
void collect_slices(const EventBatch& batch, std::vector<Slice>& out);

/// One ServedBatch per ProfilerStep span, in step order. Slices belong to a step when they lie inside its
/// span on the same process and thread. Empty when the trace has no ProfilerStep spans.
std::vector<ServedBatch> served_batches(std::vector<Slice> slices);

}  // namespace cann_debug::plugins::inference
