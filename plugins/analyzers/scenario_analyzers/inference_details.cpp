// Operator bottlenecks: how long requests took and where that time went.
#include <algorithm>

#include <fmt/format.h>

#include "details.hpp"

namespace cann_debug::plugins::scenario {

using nlohmann::json;

namespace {

/// What the profiler did to the requests and how the start features read around it, one sentence each:
/// they explain why a slow start under a profiler is not called a cold start.
json observations(const FeatureIndex& features) {
  json out = json::array();
  auto add = [&](const char* kind, const std::string& text) {
    out.push_back({{"kind", kind}, {"text", text}});
  };
  if (const Feature* f = features.find("latency.profiled_from_first_call"); f && f->value > 0.0)
    add("profiler_from_first_call",
        "the profiler recorded from the first request: its start-up lands on the first call, so the first "
        "calls are compared with the later profiled calls in the trace, not read from their latency");
  if (const Feature* f = features.find("latency.profiler_overhead"); f && f->value >= 1.05)
    add("profiler_overhead",
        fmt::format("profiled calls took {:.2f}x as long as unprofiled calls of the same "
                    "batch size; the start features read them over that",
                    f->value));
  if (const Feature* f = features.find("latency.requests_after_profiler_stop"); f && f->value > 0.0)
    add("profiler_stop",
        fmt::format("{:.0f} request{} queued behind the profiler's stop, left out of the start "
                    "features",
                    f->value, f->value == 1.0 ? "" : "s"));
  return out;
}

}  // namespace

json inference_details(const FeatureIndex& features, const Posterior& /*posterior*/) {
  json d;
  if (json o = observations(features); !o.empty()) d["observations"] = std::move(o);
  d["latency"] = features_json(features, {"latency."});
  d["request_split"] = features_json(features, {"request."});
  d["model"] = features_json(features, {"model."});
  d["batching"] = features_json(features, {"batch.", "queue.", "load."});
  d["cpu"] = features_json(features, {"cpu.", "process.", "host."});
  // Top operators: features with an `operator` label, largest first.
  json ops = json::array();
  for (const auto& f : features.all)
    if (auto it = f.labels.find("operator"); it != f.labels.end())
      ops.push_back({{"operator", it->second}, {"feature", f.name}, {"value", f.value}, {"unit", f.unit}});
  std::sort(ops.begin(), ops.end(), [](const json& a, const json& b) { return a["value"] > b["value"]; });
  if (!ops.empty()) d["top_operators"] = ops;
  // Spike windows: the request/time references of the latency features.
  json windows = json::array();
  for (const auto* f : features.with_prefix("latency."))
    for (const auto& r : f->evidence) windows.push_back({{"feature", f->name}, {"ref", r}});
  d["spike_windows"] = windows;
  return d;
}

}  // namespace cann_debug::plugins::scenario
