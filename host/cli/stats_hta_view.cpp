#include "stats_hta_view.hpp"

#include <map>
#include <set>
#include <string>
#include <vector>

namespace cann_debug::cli::stats {

namespace {

using nlohmann::json;

// "cuda_kernel_launch_stats.cpu_duration.mean" -> group "cuda_kernel_launch_stats", leaf
// "cpu_duration.mean"; a name without a dot is its own leaf in the unnamed group.
std::pair<std::string, std::string> split_name(const std::string& name) {
  const auto dot = name.find('.');
  if (dot == std::string::npos) return {"", name};
  return {name.substr(0, dot), name.substr(dot + 1)};
}

// Sets `leaf` (dotted) inside `object`, creating nested objects.
void put(json& object, const std::string& leaf, double value) {
  json* at = &object;
  std::size_t from = 0;
  for (auto dot = leaf.find('.'); dot != std::string::npos; dot = leaf.find('.', from)) {
    at = &(*at)[leaf.substr(from, dot - from)];
    from = dot + 1;
  }
  (*at)[leaf.substr(from)] = value;
}

// Labels of a feature that describe it (the set's own rank is implied by where the figures go).
Labels own_labels(const Feature& f, bool drop_rank) {
  Labels l = f.labels;
  if (drop_rank) l.erase("rank");
  return l;
}

// One FeatureSet as an object. Within a group, the labels every feature carries are the table's
// dimensions: rows are keyed by them (in order of first appearance) and hold every label of their
// features. Groups without such labels are plain (nested) figures; their occasional labels (a `rule`, a
// `clamped` marker) go to "labels" under the feature's full name.
json set_view(const FeatureSet& set, bool drop_rank) {
  std::map<std::string, std::vector<const Feature*>> groups;
  std::vector<std::string> order;
  for (const auto& f : set.features) {
    auto [group, leaf] = split_name(f.name);
    if (!groups.count(group)) order.push_back(group);
    groups[group].push_back(&f);
  }
  json out = json::object();
  json qualifiers = json::object();
  for (const auto& group : order) {
    const auto& features = groups[group];
    std::set<std::string> dims;
    for (const auto& [k, v] : own_labels(*features.front(), drop_rank)) dims.insert(k);
    for (const Feature* f : features) {
      std::set<std::string> mine;
      for (const auto& [k, v] : own_labels(*f, drop_rank))
        if (dims.count(k)) mine.insert(k);
      dims = std::move(mine);
    }
    if (dims.empty() || group.empty()) {
      json& target = group.empty() ? out : out[group];
      for (const Feature* f : features) {
        put(target, split_name(f->name).second, f->value);
        const Labels l = own_labels(*f, drop_rank);
        if (!l.empty()) qualifiers[f->name] = l;
      }
      continue;
    }
    std::vector<std::vector<std::string>> row_keys;
    json rows = json::array();
    for (const Feature* f : features) {
      const Labels l = own_labels(*f, drop_rank);
      std::vector<std::string> key;
      for (const auto& d : dims) key.push_back(l.at(d));
      std::size_t i = 0;
      while (i < row_keys.size() && row_keys[i] != key) ++i;
      if (i == row_keys.size()) {
        row_keys.push_back(key);
        rows.push_back(json::object());
      }
      for (const auto& [k, v] : l) rows[i][k] = v;
      put(rows[i], split_name(f->name).second, f->value);
    }
    out[group] = std::move(rows);
  }
  if (!qualifiers.empty()) out["labels"] = std::move(qualifiers);
  return out;
}

}  // namespace

json hta_view(const HtaResult& result) {
  json out = json::object();
  out["partial"] = result.partial;
  if (!result.error.empty()) out["error"] = result.error;
  json ranks = json::object();
  json units = json::object();
  json stragglers = json::array();
  bool has_job = false;
  for (const auto& set : result.sets) {
    for (const auto& f : set.features) units[f.name] = f.unit;
    if (set.scope == "job") {
      has_job = true;
      out["job"] = set_view(set, false);
      for (const auto& f : set.features)
        if (f.name == "straggler.is_potential" && f.value != 0 && f.labels.count("rank"))
          stragglers.push_back(std::stoi(f.labels.at("rank")));
      continue;
    }
    std::string rank = "0";
    if (!set.features.empty() && set.features.front().labels.count("rank"))
      rank = set.features.front().labels.at("rank");
    else if (set.scope.rfind("rank ", 0) == 0)
      rank = set.scope.substr(5);
    ranks[rank] = set_view(set, true);
  }
  out["ranks"] = std::move(ranks);
  if (has_job) out["potential_stragglers"] = std::move(stragglers);
  out["units"] = std::move(units);
  return out;
}

}  // namespace cann_debug::cli::stats
