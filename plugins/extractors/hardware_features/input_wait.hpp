// Input stalls in a profiler trace: how much of each profiled step the device sat idle while the training
// loop waited for its DataLoader. The DataLoader's calls are the CPU spans whose name holds "DataLoader"
// (PyTorch's `enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__`, the spans msprof-analyze's
// dataloader rule matches); device work is every kernel, memcpy and memset row. The part of a DataLoader
// call no device row overlaps is exposed: the device had nothing to do (the PyTorch profiler's TensorBoard
// plugin counts it the same way in its step-time breakdown). A trace without device rows (a CPU-only run)
// gives the share of the step in the DataLoader, but no exposed share: the host does the compute there too,
// so a loader share says nothing of a starved device.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "intervals/interval_set.hpp"

namespace cann_debug::plugins::hardware {

class InputWaitTimeline {
 public:
  /// Keeps the steps, DataLoader calls and device rows of the events (per trace file and rank).
  void add(const EventBatch& batch);
  bool empty() const { return traces_.empty(); }

  /// hw.input.data_loader_share (share of profiled step time in DataLoader calls),
  /// hw.input.data_loader_exposed_share (... of it with the device idle; traces with device rows only) and
  /// hw.input.data_loader_longest_ms (the longest call), for the trace with the largest exposed share (the
  /// largest share without device rows); evidence: the steps that waited longest. Nothing when no trace has
  /// a DataLoader call.
  void features(std::vector<Feature>& out) const;

 private:
  struct Step {
    Interval span;             // ns
    std::int64_t number = -1;  // N of ProfilerStep#N
  };
  struct Trace {
    std::string path;
    std::int32_t rank = -1;
    std::vector<Step> steps;
    std::vector<Interval> loader;
    std::vector<Interval> device;
    std::int64_t first = INT64_MAX, last = INT64_MIN;  // extent of every complete event
  };
  std::map<std::pair<std::string, std::int32_t>, Trace> traces_;
};

}  // namespace cann_debug::plugins::hardware
