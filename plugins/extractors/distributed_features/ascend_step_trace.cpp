#include "ascend_step_trace.hpp"

#include "rank_statistics.hpp"

namespace cann_debug::plugins::distributed {
namespace {

double number(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number() ? it->get<double>() : 0.0;
}

EvidenceRef rank_ref(std::int64_t rank) {
  EvidenceRef r;
  r.kind = "rank";
  r.id = "rank" + std::to_string(rank);
  return r;
}

}  // namespace

void AscendStepTrace::add(const Record& record, const std::string& source) {
  const nlohmann::json& f = record.fields;
  if (const auto t = f.find("type"); t != f.end() && t->is_string() && t->get<std::string>() != "rank")
    return;
  std::int64_t rank = record.key.has_rank() ? record.key.rank : -1;
  if (rank < 0) {
    const auto it = f.find("index");
    if (it == f.end() || !it->is_number_integer()) return;
    rank = it->get<std::int64_t>();
  }
  if (source_.empty()) source_ = source;
  Rank& r = ranks_[rank];
  r.computing_us += number(f, "computing");
  r.communication_us += number(f, "communication_not_overlapped");
  r.free_us += number(f, "free");
  ++r.rows;
}

void AscendStepTrace::features(std::vector<FeatureSet>& rank_sets, std::vector<Feature>& run,
                               bool with_late_rank) const {
  if (ranks_.size() < 2) return;
  std::vector<std::int64_t> ids;
  std::vector<double> step, compute, comm, free;
  for (const auto& [rank, r] : ranks_) {
    if (r.rows == 0) continue;
    ids.push_back(rank);
    step.push_back(r.step_ms());
    compute.push_back(r.computing_us / 1000.0 / r.rows);
    comm.push_back(r.communication_us / 1000.0 / r.rows);
    free.push_back(r.free_us / 1000.0 / r.rows);
  }
  if (ids.size() < 2) return;
  EvidenceRef series;
  series.kind = "series";
  series.id = source_;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    FeatureSet set{"rank", {}};
    const Labels labels{{"rank", std::to_string(ids[i])}};
    set.features.push_back({"rank.step_time", step[i], "ms", {rank_ref(ids[i]), series}, labels});
    set.features.push_back({"rank.compute_time", compute[i], "ms", {rank_ref(ids[i]), series}, labels});
    set.features.push_back({"rank.collective_time", comm[i], "ms", {rank_ref(ids[i]), series}, labels});
    set.features.push_back({"rank.outside_model_time", free[i], "ms", {rank_ref(ids[i]), series}, labels});
    if (step[i] > 0)
      set.features.push_back(
          {"rank.free_time_share", free[i] / step[i], "ratio", {rank_ref(ids[i]), series}, labels});
    rank_sets.push_back(std::move(set));
  }
  const double step_med = median_of(step);
  if (step_med <= 0) return;
  run.push_back({"step.time", step_med, "ms", {series}, {}});
  run.push_back({"rank.traced_count", static_cast<double>(ids.size()), "count", {series}, {}});
  const std::size_t idle = index_of_max(free);
  run.push_back({"rank.outside_model_skew",
                 (free[idle] - median_without(free, idle)) / step_med,
                 "ratio",
                 {rank_ref(ids[idle]), series},
                 {}});
  const std::size_t heavy = index_of_max(compute);
  if (const double others = median_without(compute, heavy); others > 0) {
    run.push_back(
        {"rank.compute_imbalance", compute[heavy] / others, "ratio", {rank_ref(ids[heavy]), series}, {}});
    run.push_back(
        {"rank.forward_imbalance", compute[heavy] / others, "ratio", {rank_ref(ids[heavy]), series}, {}});
  }
  const std::size_t late = index_of_min(comm);
  const std::size_t waiting = index_of_max(comm);
  if (comm[waiting] > 0) {
    run.push_back({"rank.collective_wait_skew",
                   (comm[waiting] - comm[late]) / step_med,
                   "ratio",
                   {rank_ref(ids[late]), rank_ref(ids[waiting]), series},
                   {}});
    if (with_late_rank) {
      run.push_back(
          {"rank.late_rank", static_cast<double>(ids[late]), "rank", {rank_ref(ids[late]), series}, {}});
      run.push_back({"rank.late_rank_collective_share",
                     comm[late] / comm[waiting],
                     "ratio",
                     {rank_ref(ids[late]), rank_ref(ids[waiting]), series},
                     {}});
    }
  }
}

}  // namespace cann_debug::plugins::distributed
