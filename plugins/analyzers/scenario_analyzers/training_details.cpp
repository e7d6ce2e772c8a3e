// Gradient flow: how the loss and the gradients behaved, layer by layer, and where the anomalies sit.
#include <algorithm>

#include "details.hpp"

namespace cann_debug::plugins::scenario {

using nlohmann::json;

json features_json(const FeatureIndex& features, std::initializer_list<const char*> prefixes) {
  json out = json::object();
  for (const auto& f : features.all) {
    if (std::none_of(prefixes.begin(), prefixes.end(), [&](const char* p) { return f.name.starts_with(p); }))
      continue;
    std::string key = f.name;
    if (!f.labels.empty()) {
      key += "{";
      bool first = true;
      for (const auto& [k, v] : f.labels) {
        key += (first ? "" : ",") + k + "=" + v;
        first = false;
      }
      key += "}";
    }
    json item = {{"value", f.value}, {"unit", f.unit}};
    if (!f.labels.empty()) item["labels"] = f.labels;
    if (!f.evidence.empty()) item["evidence"] = f.evidence;
    out[key] = std::move(item);
  }
  return out;
}

json training_details(const FeatureIndex& features) {
  json d;
  d["loss"] = features_json(features, {"loss."});
  d["gradients"] = features_json(features, {"grad_norm.", "grad."});
  d["learning_rate"] = features_json(features, {"lr."});
  d["data"] = features_json(features, {"data."});
  // Per-layer gradient norms (features with a `layer` label), from the input side to the output side.
  json layers = json::array();
  for (const auto& f : features.all)
    if (auto it = f.labels.find("layer"); it != f.labels.end())
      layers.push_back({{"layer", it->second}, {"feature", f.name}, {"value", f.value}, {"unit", f.unit}});
  if (!layers.empty()) d["layers"] = layers;
  // Where the anomalies sit: every step reference of the loss and gradient features.
  json anomalies = json::array();
  for (const auto* f : features.with_prefix("loss."))
    for (const auto& r : f->evidence)
      if (r.first_step >= 0) anomalies.push_back({{"feature", f->name}, {"ref", r}});
  for (const auto* f : features.with_prefix("grad_norm."))
    for (const auto& r : f->evidence)
      if (r.first_step >= 0) anomalies.push_back({{"feature", f->name}, {"ref", r}});
  d["anomalies"] = anomalies;
  return d;
}

}  // namespace cann_debug::plugins::scenario
