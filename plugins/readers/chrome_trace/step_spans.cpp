#include "step_spans.hpp"

#include <algorithm>

namespace cann_debug::plugins::chrome_trace {

std::optional<std::int64_t> profiler_step_number(std::string_view name) {
  constexpr std::string_view kPrefix = "ProfilerStep";
  if (name.substr(0, kPrefix.size()) != kPrefix) return std::nullopt;
  std::size_t i = kPrefix.size();
  auto skip_space = [&] {
    while (i < name.size() && (name[i] == ' ' || name[i] == '\t')) ++i;
  };
  skip_space();
  if (i >= name.size() || name[i] != '#') return std::nullopt;
  ++i;
  skip_space();
  std::int64_t n = 0;
  std::size_t digits = 0;
  for (; i < name.size() && name[i] >= '0' && name[i] <= '9' && digits < 18; ++i, ++digits)
    n = n * 10 + (name[i] - '0');
  if (digits == 0) return std::nullopt;
  return n;
}

void StepSpans::add(const std::string& pid_key, std::int64_t start, std::int64_t end, std::int64_t step) {
  all_.spans.push_back({start, end, step});
  by_pid_[pid_key].spans.push_back({start, end, step});
}

void StepSpans::List::finalize() {
  std::stable_sort(spans.begin(), spans.end(),
                   [](const Span& a, const Span& b) { return a.start < b.start; });
  max_end.resize(spans.size());
  std::int64_t m = INT64_MIN;
  for (std::size_t i = 0; i < spans.size(); ++i) max_end[i] = m = std::max(m, spans[i].end);
}

std::int64_t StepSpans::List::find(std::int64_t ts) const {
  if (spans.empty()) return -1;
  auto it = std::upper_bound(spans.begin(), spans.end(), ts,
                             [](std::int64_t t, const Span& s) { return t < s.start; });
  for (auto i = static_cast<std::ptrdiff_t>(it - spans.begin()) - 1; i >= 0; --i) {
    if (max_end[static_cast<std::size_t>(i)] <= ts) break;  // nothing at or before i reaches ts
    const Span& s = spans[static_cast<std::size_t>(i)];
    if (ts < s.end) return s.step;
  }
  return -1;
}

void StepSpans::finalize() {
  all_.finalize();
  for (auto& [pid, list] : by_pid_) list.finalize();
}

std::int64_t StepSpans::step_of(const std::string& pid_key, bool device, std::int64_t ts) const {
  return (device ? all_ : spans_for(pid_key)).find(ts);
}

const StepSpans::List& StepSpans::spans_for(const std::string& pid_key) const {
  const auto it = by_pid_.find(pid_key);
  return it != by_pid_.end() ? it->second : all_;
}

std::vector<std::int64_t> StepSpans::steps() const {
  std::vector<std::int64_t> out;
  for (const auto& s : all_.spans) out.push_back(s.step);
  return out;
}

}  // namespace cann_debug::plugins::chrome_trace
