// The batch size a profiler trace shows: the leading dimension of the data that the model's first layer
// received in each profiled step (Kineto's "Input Dims", written with record_shapes=True).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::training_detail {

struct TraceBatch {
  double samples = 0.0;     // median over the profiled steps of the first layer's leading dimension
  std::size_t steps = 0;    // profiled steps it was read in
  EvidenceRef first_layer;  // the first step's first-layer operator
};

/// Keeps, batch by batch, the earliest input-layer call of each profiler step (the step the chrome_trace
/// reader placed the event in, `key.step_id`) and the earliest one outside any step; never the whole trace.
class TraceBatchScanner {
 public:
  void add(const EventBatch& batch);
  /// The batch size, when some step's first layer had a batched input; absent otherwise.
  std::optional<TraceBatch> result() const;

 private:
  struct LayerCall {
    TimestampNs start = 0;
    double leading_dim = 0.0;
    std::string name;
  };
  std::map<std::int64_t, LayerCall> first_by_step_;
  std::optional<LayerCall> first_outside_steps_;
};

/// The leading dimension of the data input of an input-layer operator (aten::linear, aten::conv1d/2d/3d,
/// aten::embedding) from its "Input Dims" argument; absent for other operators or an unbatched input.
std::optional<double> input_layer_batch(const Event& e);

}  // namespace cann_debug::plugins::training_detail
