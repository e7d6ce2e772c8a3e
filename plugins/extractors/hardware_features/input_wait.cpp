#include "input_wait.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <set>
#include <tuple>

#include "cann_debug/reader/text.hpp"
#include "cann_debug/trace_events.hpp"

namespace cann_debug::plugins::hardware {
namespace {

constexpr std::string_view kStepPrefix = "ProfilerStep#";
constexpr std::size_t kCitedSteps = 3;

std::string ms(std::int64_t ns) {
  const double v = static_cast<double>(ns) / 1e6;
  return v >= 10.0 ? fmt::format("{:.0f} ms", v) : fmt::format("{:.1f} ms", v);
}

std::string step_name(std::int64_t number) {
  return number >= 0 ? fmt::format("{}{}", kStepPrefix, number) : std::string("the profiled span");
}

struct StepWait {
  Interval span;
  std::int64_t number = -1;
  std::int64_t duration = 0;
  std::int64_t in_loader = 0;
  std::int64_t exposed = 0;
};

struct TraceWait {
  std::vector<StepWait> steps;
  std::int64_t step_time = 0, in_loader = 0, exposed = 0, longest_call = 0;
  bool device = false;  // the trace has device rows: the exposed share is measured
  double share() const { return step_time > 0 ? static_cast<double>(in_loader) / step_time : 0.0; }
  double exposed_share() const { return step_time > 0 ? static_cast<double>(exposed) / step_time : 0.0; }
  // The figure a trace is ranked by: its exposed share where measured, else its loader share.
  double rank_value() const { return device ? exposed_share() : share(); }
};

}  // namespace

void InputWaitTimeline::add(const EventBatch& batch) {
  for (const Event& e : batch.events) {
    if (e.phase != 'X' || e.start_ns == kNoTimestamp || e.duration_ns < 0) continue;
    Trace& t = traces_[{batch.source_path, e.key.rank}];
    if (t.path.empty()) t.path = batch.source_path, t.rank = e.key.rank;
    const Interval span{e.start_ns, e.start_ns + e.duration_ns};
    t.first = std::min(t.first, span.begin);
    t.last = std::max(t.last, span.end);
    const auto category = trace::category_of(e.category);
    if (trace::is_device_row(category)) {
      if (e.duration_ns > 0) t.device.push_back(span);
      continue;
    }
    if (category == trace::EventCategory::kGpuUserAnnotation) continue;  // Kineto's copies on device rows
    if (e.name.starts_with(kStepPrefix)) {
      std::int64_t number = -1;
      const std::string_view digits = std::string_view(e.name).substr(kStepPrefix.size());
      std::from_chars(digits.data(), digits.data() + digits.size(), number);
      t.steps.push_back({span, number});
    } else if (e.duration_ns > 0 && readers::icontains(e.name, "dataloader")) {
      t.loader.push_back(span);
    }
  }
}

void InputWaitTimeline::features(std::vector<Feature>& out) const {
  const TraceWait* best = nullptr;
  const Trace* best_trace = nullptr;
  std::vector<TraceWait> waits;
  waits.reserve(traces_.size());
  for (const auto& [key, t] : traces_) {
    if (t.loader.empty()) continue;
    TraceWait w;
    const std::vector<Interval> loader = merge_intervals(t.loader);
    const std::vector<Interval> device = merge_intervals(t.device);
    w.device = !device.empty();
    for (const Interval& s : t.loader) w.longest_call = std::max(w.longest_call, s.end - s.begin);
    // Each step once (a step number seen twice is one step), in time order; no steps: the whole trace.
    std::vector<Step> steps = t.steps;
    std::sort(steps.begin(), steps.end(), [](const Step& a, const Step& b) {
      return std::tie(a.span.begin, a.span.end) < std::tie(b.span.begin, b.span.end);
    });
    std::set<std::int64_t> seen;
    std::erase_if(steps, [&](const Step& s) { return s.number >= 0 && !seen.insert(s.number).second; });
    if (steps.empty()) steps.push_back({{t.first, t.last}, -1});
    for (const Step& s : steps) {
      StepWait sw{s.span, s.number, s.span.end - s.span.begin, 0, 0};
      const std::vector<Interval> in_loader = clip_intervals(loader, s.span);
      sw.in_loader = union_length(in_loader);
      sw.exposed = sw.in_loader - overlap_length(in_loader, clip_intervals(device, s.span));
      w.step_time += sw.duration;
      w.in_loader += sw.in_loader;
      w.exposed += sw.exposed;
      w.steps.push_back(sw);
    }
    waits.push_back(std::move(w));
    const TraceWait& added = waits.back();
    // A trace with device rows outranks one without: only it measures a starved device.
    if (!best || added.device > best->device ||
        (added.device == best->device && added.rank_value() > best->rank_value())) {
      best = &added;
      best_trace = &t;
    }
  }
  if (!best || best->step_time <= 0) return;

  const std::string file = std::filesystem::path(best_trace->path).filename().string();
  const StepWait& first = best->steps.front();
  const StepWait& last = best->steps.back();
  std::vector<EvidenceRef> evidence;
  EvidenceRef all;
  all.kind = "steps";
  all.start_ns = first.span.begin;
  all.end_ns = last.span.end;
  all.first_step = first.number;
  all.last_step = last.number;
  const std::string which = best->steps.size() == 1
                                ? step_name(first.number)
                                : fmt::format("{}..{} ({} steps)", step_name(first.number),
                                              step_name(last.number), best->steps.size());
  all.id =
      best->device
          ? fmt::format(
                "{} of {}: the device idle {} of {} ({:.0f}%) while the loop waited for the "
                "DataLoader; longest call {}",
                which, file, ms(best->exposed), ms(best->step_time), 100.0 * best->exposed_share(),
                ms(best->longest_call))
          : fmt::format("{} of {}: {} of {} ({:.0f}%) in the DataLoader (no device rows); longest call {}",
                        which, file, ms(best->in_loader), ms(best->step_time), 100.0 * best->share(),
                        ms(best->longest_call));
  evidence.push_back(all);
  std::vector<const StepWait*> longest;
  for (const StepWait& s : best->steps) longest.push_back(&s);
  auto wait_of = [&](const StepWait* s) { return best->device ? s->exposed : s->in_loader; };
  std::stable_sort(longest.begin(), longest.end(),
                   [&](const StepWait* a, const StepWait* b) { return wait_of(a) > wait_of(b); });
  for (std::size_t i = 0; i < longest.size() && i < kCitedSteps && best->steps.size() > 1; ++i) {
    if (wait_of(longest[i]) <= 0) break;
    EvidenceRef r;
    r.kind = "step";
    r.start_ns = longest[i]->span.begin;
    r.end_ns = longest[i]->span.end;
    r.first_step = r.last_step = longest[i]->number;
    r.id = fmt::format(
        "{}: {} of {} {}", step_name(longest[i]->number), ms(wait_of(longest[i])), ms(longest[i]->duration),
        best->device ? "waiting for the DataLoader with the device idle" : "in the DataLoader");
    evidence.push_back(std::move(r));
  }

  Labels labels;
  if (best_trace->rank >= 0) labels["rank"] = std::to_string(best_trace->rank);
  auto feature = [&](std::string name, double value, std::string unit) {
    Feature f;
    f.name = std::move(name);
    f.value = value;
    f.unit = std::move(unit);
    f.evidence = evidence;
    f.labels = labels;
    out.push_back(std::move(f));
  };
  feature("hw.input.data_loader_share", best->share(), "ratio");
  if (best->device) feature("hw.input.data_loader_exposed_share", best->exposed_share(), "ratio");
  feature("hw.input.data_loader_longest_ms", static_cast<double>(best->longest_call) / 1e6, "ms");
}

}  // namespace cann_debug::plugins::hardware
