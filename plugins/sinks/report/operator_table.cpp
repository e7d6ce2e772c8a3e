#include "operator_table.hpp"

#include <algorithm>
#include <string_view>
#include <utility>

namespace cann_debug::report {

void OperatorAggregator::add(const EventBatch& batch) {
  // Indices of the operator events, grouped by thread and sorted by start (longest first on ties, so a
  // parent comes before a child that starts with it).
  std::vector<std::size_t> ops;
  for (std::size_t i = 0; i < batch.events.size(); ++i)
    if (trace::is_operator_event(batch.events[i])) ops.push_back(i);
  const auto& ev = batch.events;
  std::sort(ops.begin(), ops.end(), [&](std::size_t a, std::size_t b) {
    const Event& x = ev[a];
    const Event& y = ev[b];
    if (x.pid != y.pid) return x.pid < y.pid;
    if (x.tid != y.tid) return x.tid < y.tid;
    if (x.start_ns != y.start_ns) return x.start_ns < y.start_ns;
    return x.duration_ns > y.duration_ns;
  });
  std::vector<std::pair<std::size_t, std::int64_t>> stack;  // event index, child time so far
  auto close = [&](std::pair<std::size_t, std::int64_t> top) {
    const Event& e = ev[top.first];
    Totals& t = totals_[e.name];
    ++t.count;
    t.total_ns += e.duration_ns;
    t.self_ns += std::max<std::int64_t>(0, e.duration_ns - top.second);
  };
  for (std::size_t k = 0; k < ops.size(); ++k) {
    const Event& e = ev[ops[k]];
    while (!stack.empty()) {
      const Event& open = ev[stack.back().first];
      const bool same_thread = open.pid == e.pid && open.tid == e.tid;
      if (same_thread && e.start_ns < open.start_ns + open.duration_ns) break;
      close(stack.back());
      stack.pop_back();
    }
    if (!stack.empty()) stack.back().second += e.duration_ns;
    stack.emplace_back(ops[k], 0);
    ++events_;
  }
  while (!stack.empty()) {
    close(stack.back());
    stack.pop_back();
  }
}

std::vector<OperatorRow> OperatorAggregator::rows(std::size_t top) const {
  std::int64_t all_self = 0;
  for (const auto& [name, t] : totals_) all_self += t.self_ns;
  std::vector<OperatorRow> out;
  out.reserve(totals_.size());
  for (const auto& [name, t] : totals_)
    out.push_back({name, t.count, static_cast<double>(t.total_ns) / 1e6, static_cast<double>(t.self_ns) / 1e6,
                   all_self > 0 ? static_cast<double>(t.self_ns) / static_cast<double>(all_self) : 0.0});
  std::stable_sort(out.begin(), out.end(),
                   [](const OperatorRow& a, const OperatorRow& b) { return a.self_ms > b.self_ms; });
  if (out.size() > top) out.resize(top);
  return out;
}

}  // namespace cann_debug::report
