// Batch size from a profiler trace; see trace_batch.hpp and docs/features-training.md ("Data features").
#include "trace_batch.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>

#include "series_math.hpp"

namespace cann_debug::plugins::training_detail {
namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
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

std::int64_t step_of_name(std::string_view name) {
  name.remove_prefix(kStepPrefix.size());
  std::int64_t step = -1;
  const auto [ptr, ec] = std::from_chars(name.data(), name.data() + name.size(), step);
  return ec == std::errc() ? step : -1;
}

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
    if (e.name.starts_with(kStepPrefix)) {
      steps_.push_back({e.start_ns, e.start_ns + e.duration_ns, step_of_name(e.name)});
    } else if (const auto n = input_layer_batch(e)) {
      calls_.push_back({e.start_ns, *n, e.name, batch.source_path});
    }
  }
}

std::optional<TraceBatch> TraceBatchScanner::result() const {
  if (calls_.empty()) return std::nullopt;
  std::vector<const LayerCall*> firsts;
  std::vector<std::int64_t> step_ids;
  if (steps_.empty()) {
    // No step annotations: the trace's first input-layer call.
    firsts.push_back(&*std::min_element(calls_.begin(), calls_.end(),
                                        [](const auto& a, const auto& b) { return a.start < b.start; }));
    step_ids.push_back(-1);
  } else {
    for (const Span& s : steps_) {
      const LayerCall* first = nullptr;
      for (const LayerCall& c : calls_)
        if (c.start >= s.start && c.start < s.end && (first == nullptr || c.start < first->start)) first = &c;
      if (first != nullptr) {
        firsts.push_back(first);
        step_ids.push_back(s.step);
      }
    }
  }
  if (firsts.empty()) return std::nullopt;
  std::vector<double> sizes;
  for (const LayerCall* c : firsts) sizes.push_back(c->leading_dim);
  const auto earliest = std::min_element(firsts.begin(), firsts.end(),
                                         [](const auto* a, const auto* b) { return a->start < b->start; });
  const std::size_t at = static_cast<std::size_t>(earliest - firsts.begin());
  TraceBatch out;
  out.samples = median(sizes);
  out.steps = sizes.size();
  out.first_layer = {"operator",         (*earliest)->name, (*earliest)->start,
                     (*earliest)->start, step_ids[at],      step_ids[at]};
  return out;
}

}  // namespace cann_debug::plugins::training_detail
