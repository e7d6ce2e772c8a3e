#include "rank_trace.hpp"

#include <algorithm>
#include <charconv>

#include "cann_debug/reader/text.hpp"
#include "cann_debug/trace_events.hpp"

namespace cann_debug::plugins::distributed {
namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr std::string_view kAutogradPrefix = "autograd::engine::evaluate_function:";
constexpr std::string_view kUserRanges[] = {"data_loading", "forward", "backward", "optimizer_step"};

std::int64_t parse_step(std::string_view name) {
  std::int64_t step = -1;
  const std::string_view digits = name.substr(kStepPrefix.size());
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
  if (ec != std::errc() || end != digits.data() + digits.size() || step < 0) return -1;
  return step;
}

// The intervals of `spans` on thread `tid` (any thread when tid < 0) that start inside `window`, clipped
// to it.
std::vector<Interval> in_step(const auto& spans, std::int64_t tid, const Interval& window) {
  std::vector<Interval> out;
  for (const auto& s : spans) {
    if (tid >= 0 && s.tid != tid) continue;
    if (s.time.begin < window.begin || s.time.begin >= window.end) continue;
    out.push_back({s.time.begin, std::min(s.time.end, window.end)});
  }
  return out;
}

// On a GPU the step's communication is what the NCCL kernels did, not the CPU's asynchronous launches; the
// step's free time is the time the GPU had nothing to run (in steady state the device timeline repeats with
// the CPU step period, so step time - device busy time is the GPU's idle time per step).
void use_device_timeline(const DeviceStep& d, StepBreakdown& b) {
  b.device_timeline = true;
  b.collective_ns = d.collective_ns;
  b.exposed_collective_ns = d.exposed_collective_ns;
  b.collective_calls = d.collective_kernels;
  b.kernel_compute_ns = d.compute_ns;
  b.outside_model_ns = std::max<std::int64_t>(0, b.step_ns - d.busy_ns);
}

}  // namespace

bool is_collective_work(std::string_view name) {
  return name.starts_with("gloo:") || name.starts_with("nccl:") || name.starts_with("hccl:");
}

bool is_all_to_all(std::string_view name) {
  return readers::icontains(name, "all_to_all") || readers::icontains(name, "alltoall");
}

bool is_collective_call(std::string_view name) {
  // c10d::allreduce_, c10d::broadcast_, c10d::allgather_, c10d::reduce_scatter_, ... (the ops the
  // ProcessGroup dispatcher records; c10d::barrier is a collective too).
  return name.starts_with("c10d::");
}

void RankTrace::add(const Event& event) {
  if (event.phase != 'X' || event.start_ns == kNoTimestamp || event.duration_ns < 0) return;
  if (trace::is_moe_expert_compute(event.name)) {
    const Span expert{event.tid, {event.start_ns, event.start_ns + event.duration_ns}};
    (trace::is_device_row(event.category) ? expert_device_ : expert_cpu_).push_back(expert);
  }
  if (device_.add(event)) return;
  if (trace::category_of(event.category) == trace::EventCategory::kGpuUserAnnotation)
    return;  // Kineto's copy of CPU ranges on the GPU rows
  const Span span{event.tid, {event.start_ns, event.start_ns + event.duration_ns}};
  const std::string_view name = event.name;
  if (name.starts_with(kStepPrefix)) {
    if (const std::int64_t step = parse_step(name); step >= 0)
      step_spans_.push_back({step, event.tid, span.time});
  } else if (is_collective_work(name)) {
    (is_all_to_all(name) ? dispatch_work_ : collective_work_).push_back(span);
  } else if (is_collective_call(name)) {
    if (!is_all_to_all(name)) collective_calls_.push_back(span);
  } else if (name.starts_with(kAutogradPrefix)) {
    autograd_nodes_.push_back(span);
  } else if (std::find(std::begin(kUserRanges), std::end(kUserRanges), name) != std::end(kUserRanges)) {
    ranges_[std::string(name)].push_back(span);
  }
}

std::vector<StepBreakdown> RankTrace::steps() const {
  std::vector<StepSpan> spans = step_spans_;
  std::sort(spans.begin(), spans.end(), [](const StepSpan& a, const StepSpan& b) { return a.step < b.step; });
  static const std::vector<Span> kNone;
  auto range = [&](std::string_view name) -> const std::vector<Span>& {
    const auto it = ranges_.find(name);
    return it == ranges_.end() ? kNone : it->second;
  };
  std::vector<DeviceStep> device;
  if (device_.has_kernels()) {
    std::vector<Interval> windows;
    for (const StepSpan& s : spans) windows.push_back(s.time);
    device = device_.per_step(windows);
  }
  std::vector<StepBreakdown> out;
  for (const StepSpan& s : spans) {
    const Interval& w = s.time;
    StepBreakdown b;
    b.step = s.step;
    b.start_ns = w.begin;
    b.step_ns = w.end - w.begin;
    const auto data_loading = in_step(range("data_loading"), s.tid, w);
    const auto forward = in_step(range("forward"), s.tid, w);
    const auto backward = in_step(range("backward"), s.tid, w);
    const auto optimizer = in_step(range("optimizer_step"), s.tid, w);
    const auto work = in_step(collective_work_, -1, w);
    const auto calls = in_step(collective_calls_, s.tid, w);
    b.data_loading_ns = union_length(data_loading);
    b.forward_ns = union_length(forward);
    b.backward_ns = union_length(backward);
    b.optimizer_ns = union_length(optimizer);
    std::vector<Interval> model = forward;
    model.insert(model.end(), backward.begin(), backward.end());
    model.insert(model.end(), optimizer.begin(), optimizer.end());
    b.collective_ns = union_length(work);
    b.exposed_collective_ns = b.collective_ns - overlap_length(work, model);
    b.collective_in_backward_ns = overlap_length(work, backward);
    b.collective_calls = static_cast<std::int64_t>(calls.size());
    std::vector<Interval> autograd;
    for (const Interval& bw : backward) {
      const auto nodes = clip_intervals(in_step(autograd_nodes_, s.tid, w), bw);
      autograd.insert(autograd.end(), nodes.begin(), nodes.end());
    }
    b.backward_compute_ns = union_length(autograd) - overlap_length(autograd, calls);
    b.outside_model_ns = std::max<std::int64_t>(0, b.step_ns - union_length(model) - b.exposed_collective_ns);
    const auto dispatch = in_step(dispatch_work_, -1, w);
    b.dispatch_ns = union_length(dispatch);
    std::vector<Interval> all_work = work;
    all_work.insert(all_work.end(), dispatch.begin(), dispatch.end());
    b.forward_compute_ns = b.forward_ns - overlap_length(all_work, forward);
    // Expert kernels by their start inside the step (a device runs behind its CPU); CPU expert ranges on
    // any thread (the autograd thread runs the backward ones).
    b.expert_on_device = !expert_device_.empty();
    b.expert_ns = union_length(in_step(b.expert_on_device ? expert_device_ : expert_cpu_, -1, w));
    if (!device.empty()) use_device_timeline(device[out.size()], b);
    out.push_back(b);
  }
  return out;
}

}  // namespace cann_debug::plugins::distributed
