// Operator bottlenecks: how long requests took and where that time went.
#include <algorithm>

#include "details.hpp"

namespace cann_debug::plugins::scenario {

using nlohmann::json;

json inference_details(const FeatureIndex& features) {
  json d;
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
