// Batch size from a profiler trace; see trace_batch.hpp and docs/features-training.md ("Data features").
#include "trace_batch.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <vector>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

constexpr double kLongSequence = 64.0;

// The operators a model's input layer runs, and which of their inputs holds the data (the others are
// weights). 2-D and larger inputs only: a 1-D input to a linear layer is one unbatched sample.
struct LayerOp {
  std::string_view name;
  std::size_t data_input;
  std::size_t min_rank;
};
constexpr std::array<LayerOp, 6> kLayerOps{{{"aten::linear", 0, 2},
                                            {"aten::conv1d", 0, 3},
                                            {"aten::conv2d", 0, 4},
                                            {"aten::conv3d", 0, 5},
                                            {"aten::embedding", 1, 2},
                                            {"aten::_convolution", 0, 3}}};

}  // namespace

std::optional<double> input_layer_batch(const Event& e) {
  const auto op =
      std::find_if(kLayerOps.begin(), kLayerOps.end(), [&](const LayerOp& o) { return o.name == e.name; });
  if (op == kLayerOps.end() || !e.args.is_object()) return std::nullopt;
  const auto dims = e.args.find("Input Dims");
  if (dims == e.args.end() || !dims->is_array() || dims->size() <= op->data_input) return std::nullopt;
  const auto& shape = (*dims)[op->data_input];
  if (!shape.is_array() || shape.size() < op->min_rank || !shape[0].is_number()) return std::nullopt;
  const double n = shape[0].get<double>();
  if (!(n >= 1.0)) return std::nullopt;
  // A language model's batch is its tokens: a micro-batch of one 2048-token sequence is no tiny batch.
  // Token ids [batch, positions] of an embedding, or [batch, positions, width] into a linear layer, with a
  // sequence of at least kLongSequence positions count batch x positions.
  const bool sequence = (op->name == "aten::embedding" && shape.size() == 2) ||
                        (op->name == "aten::linear" && shape.size() == 3);
  if (sequence && shape[1].is_number()) {
    const double positions = shape[1].get<double>();
    if (positions >= kLongSequence) return n * positions;
  }
  return n;
}

void TraceBatchScanner::add(const EventBatch& batch) {
  for (const Event& e : batch.events) {
    if (e.phase != 'X' || e.start_ns == kNoTimestamp) continue;
    const auto n = input_layer_batch(e);
    if (!n) continue;
    LayerCall call{e.start_ns, *n, e.name};
    if (!e.key.has_step()) {
      if (!first_outside_steps_ || call.start < first_outside_steps_->start)
        first_outside_steps_ = std::move(call);
      continue;
    }
    const auto [it, inserted] = first_by_step_.try_emplace(e.key.step_id, call);
    if (!inserted && call.start < it->second.start) it->second = std::move(call);
  }
}

std::optional<TraceBatch> TraceBatchScanner::result() const {
  TraceBatch out;
  if (first_by_step_.empty()) {
    // No step annotations: the trace's first input-layer call.
    if (!first_outside_steps_) return std::nullopt;
    out.samples = first_outside_steps_->leading_dim;
    out.steps = 1;
    out.first_layer = {
        "operator", first_outside_steps_->name, first_outside_steps_->start, first_outside_steps_->start, -1,
        -1};
    return out;
  }
  std::vector<double> sizes;
  auto earliest = first_by_step_.begin();
  for (auto it = first_by_step_.begin(); it != first_by_step_.end(); ++it) {
    sizes.push_back(it->second.leading_dim);
    if (it->second.start < earliest->second.start) earliest = it;
  }
  const auto& [step, call] = *earliest;
  out.samples = median(std::move(sizes));
  out.steps = first_by_step_.size();
  out.first_layer = {"operator", call.name, call.start, call.start, step, step};
  return out;
}

}  // namespace cann_debug::plugins::training_detail
