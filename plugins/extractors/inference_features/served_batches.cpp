#include "served_batches.hpp"

#include <algorithm>
#include <charconv>
#include <optional>
#include <string_view>
#include <utility>

#include "cann_debug/trace_events.hpp"
#include "intervals/interval_set.hpp"

namespace cann_debug::plugins::inference {
namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";

bool is_operator(const std::string& name) {
  return trace::is_framework_operator(name);
}

std::optional<std::int64_t> step_index(const std::string& name) {
  if (!name.starts_with(kStepPrefix)) return std::nullopt;
  std::int64_t index = -1;
  const char* first = name.data() + kStepPrefix.size();
  const char* last = name.data() + name.size();
  const auto [ptr, ec] = std::from_chars(first, last, index);
  if (ec != std::errc{} || ptr != last || index < 0) return std::nullopt;
  return index;
}

// Earlier start first; on equal starts the longer (enclosing) slice first.
bool nesting_order(const Slice& a, const Slice& b) {
  if (a.start_ns != b.start_ns) return a.start_ns < b.start_ns;
  return a.duration_ns > b.duration_ns;
}

bool contains(const Slice& outer, const Slice& inner) {
  return inner.start_ns >= outer.start_ns && inner.end_ns() <= outer.end_ns();
}

// The longest slice called `name` among `slices` (the outermost user range of that name).
const Slice* outermost(const std::vector<const Slice*>& slices, std::string_view name) {
  const Slice* best = nullptr;
  for (const Slice* s : slices)
    if (s->name == name && (best == nullptr || s->duration_ns > best->duration_ns)) best = s;
  return best;
}

// Operators inside `forward` (slices in nesting order): counts, self time per name and the time covered by
// operators that have no operator around them.
void analyse_forward(const Slice& forward, const std::vector<const Slice*>& inside, ServedBatch& batch) {
  struct Open {
    const Slice* slice;
    std::int64_t self_ns;
    bool under_operator;  // an aten:: operator encloses it (or it is one)
  };
  std::vector<Open> stack;
  auto close = [&](const Open& open) {
    if (is_operator(open.slice->name))
      batch.operator_self_ns[open.slice->name] += std::max<std::int64_t>(0, open.self_ns);
  };
  for (const Slice* s : inside) {
    if (s == &forward || !contains(forward, *s)) continue;
    while (!stack.empty() && stack.back().slice->end_ns() <= s->start_ns) {
      close(stack.back());
      stack.pop_back();
    }
    const bool parent_under_operator = !stack.empty() && stack.back().under_operator;
    if (!stack.empty()) stack.back().self_ns -= s->duration_ns;
    const bool op = is_operator(s->name);
    if (op) {
      ++batch.operator_count;
      if (s->name == "aten::batch_norm") ++batch.batch_norm_count;
      if (!parent_under_operator) batch.operator_covered_ns += s->duration_ns;
    }
    stack.push_back({s, s->duration_ns, parent_under_operator || op});
  }
  for (const auto& open : stack) close(open);
}

// Time of `range` covered by the framework operators inside it: the union of their spans. What is left is
// host code the profiler saw no operator for (Python, numpy, PIL).
std::int64_t operator_covered(const Slice& range, const std::vector<const Slice*>& inside) {
  std::vector<Interval> operators;
  for (const Slice* s : inside)
    if (s != &range && contains(range, *s) && is_operator(s->name))
      operators.push_back({s->start_ns, s->end_ns()});
  return union_length(operators);
}

}  // namespace

void collect_slices(const EventBatch& batch, std::vector<Slice>& out) {
  for (const Event& e : batch.events) {
    if (e.phase != 'X' || e.start_ns == kNoTimestamp) continue;
    out.push_back(Slice{e.name, e.start_ns, e.duration_ns, e.tid, e.pid});
  }
}

std::vector<ServedBatch> served_batches(std::vector<Slice> slices) {
  std::sort(slices.begin(), slices.end(), nesting_order);
  std::vector<std::pair<std::int64_t, const Slice*>> steps;
  for (const Slice& s : slices)
    if (auto index = step_index(s.name)) steps.emplace_back(*index, &s);
  std::sort(steps.begin(), steps.end(), [](const auto& a, const auto& b) { return a.first < b.first; });

  std::vector<ServedBatch> batches;
  for (const auto& [index, step] : steps) {
    // Slices of the step's thread inside its span (slices are sorted by start).
    const auto first = std::lower_bound(slices.begin(), slices.end(), step->start_ns,
                                        [](const Slice& s, std::int64_t t) { return s.start_ns < t; });
    std::vector<const Slice*> inside;
    for (auto it = first; it != slices.end() && it->start_ns < step->end_ns(); ++it)
      if (&*it != step && it->tid == step->tid && it->pid == step->pid && contains(*step, *it))
        inside.push_back(&*it);

    ServedBatch batch;
    batch.index = index;
    if (!inside.empty()) {
      std::int64_t end = inside.front()->end_ns();
      for (const Slice* s : inside) end = std::max(end, s->end_ns());
      batch.busy_ns = end - inside.front()->start_ns;
    }
    if (const Slice* pre = outermost(inside, "preprocess")) {
      batch.preprocess_ns = pre->duration_ns;
      batch.preprocess_operator_covered_ns = operator_covered(*pre, inside);
    }
    if (const Slice* post = outermost(inside, "postprocess")) batch.postprocess_ns = post->duration_ns;
    if (const Slice* forward = outermost(inside, "forward")) {
      batch.forward_ns = forward->duration_ns;
      analyse_forward(*forward, inside, batch);
    }
    batches.push_back(std::move(batch));
  }
  return batches;
}

}  // namespace cann_debug::plugins::inference
