// Topology-aware communication: each rank's step, who held the others up, and the links.
#include <map>

#include "details.hpp"

namespace cann_debug::plugins::scenario {

using nlohmann::json;

json distributed_details(const FeatureIndex& features, const Posterior& /*posterior*/) {
  json d;
  d["communication"] = features_json(features, {"comm."});
  d["steps"] = features_json(features, {"step."});
  d["pipeline"] = features_json(features, {"pipeline."});
  // Per rank: every feature with a `rank` label, as rank -> {feature: value}.
  std::map<std::string, json> ranks;
  for (const auto& f : features.all)
    if (auto it = f.labels.find("rank"); it != f.labels.end()) ranks[it->second][f.name] = f.value;
  json per_rank = json::object();
  for (auto& [rank, figures] : ranks) per_rank[rank] = std::move(figures);
  d["ranks"] = per_rank;
  // The causal direction: the rank that entered the collectives last held the others up; the others'
  // wait is the skew. Run-level rank.* features (without a rank label) carry it.
  json direction = json::object();
  if (const Feature* late = features.find("rank.late_rank")) {
    direction["late_rank"] = late->value;
    direction["evidence"] = late->evidence;
  }
  for (const char* name :
       {"rank.collective_wait_skew", "rank.late_rank_collective_share", "rank.data_loading_skew",
        "rank.outside_model_skew", "rank.compute_imbalance", "rank.busy_time_dixon_q",
        "rank.slow_rank_vote_share", "rank.step_split_gap", "rank.idle_skew"})
    for (const auto& f : features.all)
      if (f.name == name && f.labels.find("rank") == f.labels.end()) {
        direction[f.name] = {{"value", f.value}, {"unit", f.unit}};
        if (!f.labels.empty()) direction[f.name]["labels"] = f.labels;
      }
  d["who_waited_for_whom"] = direction;
  json links = json::array();
  for (const auto& f : features.all)
    if (auto it = f.labels.find("link"); it != f.labels.end())
      links.push_back({{"link", it->second}, {"feature", f.name}, {"value", f.value}, {"unit", f.unit}});
  if (!links.empty()) d["links"] = links;
  return d;
}

}  // namespace cann_debug::plugins::scenario
