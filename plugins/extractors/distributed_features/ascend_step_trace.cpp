#include "ascend_step_trace.hpp"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "json_number.hpp"
#include "rank_statistics.hpp"

namespace cann_debug::plugins::distributed {
namespace {

bool has_number(const nlohmann::json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_number();
}

EvidenceRef rank_ref(std::int64_t rank) {
  EvidenceRef r;
  r.kind = "rank";
  r.id = "rank" + std::to_string(rank);
  return r;
}

/// The ranks of a stage row's Index, "(0, 1, 2, 3)"; empty when it is not such a tuple.
std::vector<std::int64_t> ranks_of_tuple(const std::string& text) {
  std::vector<std::int64_t> out;
  const char* p = text.data();
  const char* end = p + text.size();
  while (p < end) {
    if (*p >= '0' && *p <= '9') {
      std::int64_t v = 0;
      const auto r = std::from_chars(p, end, v);
      out.push_back(v);
      p = r.ptr;
    } else {
      ++p;
    }
  }
  return out;
}

/// "8-15" for consecutive ranks, else "0,2,4".
std::string rank_list(const std::vector<std::int64_t>& ranks) {
  if (ranks.empty()) return "";
  bool consecutive = true;
  for (std::size_t i = 1; i < ranks.size(); ++i) consecutive = consecutive && ranks[i] == ranks[i - 1] + 1;
  if (consecutive && ranks.size() > 2) return fmt::format("{}-{}", ranks.front(), ranks.back());
  return fmt::format("{}", fmt::join(ranks, ","));
}

/// The figures of one pipeline stage's ranks, per step in ms.
struct StageFigures {
  std::int64_t stage = -1;
  std::vector<std::int64_t> ids;
  std::vector<double> step, compute, comm, exclude_receive, free, bubble;
  bool has_bubble = false;

  EvidenceRef ref() const {
    EvidenceRef r;
    r.kind = "stage";
    r.id = stage >= 0 ? fmt::format("{} (ranks {})", stage, rank_list(ids)) : "ranks " + rank_list(ids);
    return r;
  }
};

}  // namespace

void AscendStepTrace::add(const Record& record, const std::string& source) {
  const auto verdict = preference_.see(source);
  if (!verdict.counts) return;
  if (verdict.restart) {
    ranks_.clear();
    stage_of_rank_.clear();
    stage_rows_ = 0;
    source_.clear();
  }
  const nlohmann::json& f = record.fields;
  if (const auto t = f.find("type"); t != f.end() && t->is_string() && t->get<std::string>() != "rank") {
    if (t->get<std::string>() != "stage") return;
    const auto index = f.find("index");
    if (index == f.end() || !index->is_string()) return;
    const auto members = ranks_of_tuple(index->get<std::string>());
    if (members.empty()) return;
    // Stage rows repeat per step with the same tuple: a tuple seen before keeps its stage step_trace_number.
    std::int64_t stage = -1;
    for (const auto m : members)
      if (const auto it = stage_of_rank_.find(m); it != stage_of_rank_.end()) stage = it->second;
    if (stage < 0) stage = stage_rows_++;
    for (const auto m : members) stage_of_rank_[m] = stage;
    return;
  }
  std::int64_t rank = record.key.has_rank() ? record.key.rank : -1;
  if (rank < 0) {
    const auto it = f.find("index");
    if (it == f.end() || !it->is_number_integer()) return;
    rank = it->get<std::int64_t>();
  }
  if (source_.empty()) source_ = source;
  Rank& r = ranks_[rank];
  const double comm = number_or_zero(f, "communication_not_overlapped");
  const double bubble = number_or_zero(f, "bubble");
  r.computing_us += number_or_zero(f, "computing");
  r.communication_us += comm;
  // Without the Exclude Receive column, receives are the bubble: take them out by hand.
  r.exclude_receive_us += has_number(f, "communication_not_overlapped_and_exclude_receive")
                              ? number_or_zero(f, "communication_not_overlapped_and_exclude_receive")
                              : std::max(0.0, comm - bubble);
  r.free_us += number_or_zero(f, "free");
  r.bubble_us += bubble;
  r.has_bubble = r.has_bubble || has_number(f, "bubble");
  if (has_number(f, "pp_index")) r.stage = static_cast<std::int64_t>(number_or_zero(f, "pp_index"));
  ++r.rows;
}

void AscendStepTrace::features(std::vector<FeatureSet>& rank_sets, std::vector<Feature>& run,
                               bool with_late_rank) const {
  // Group the ranks by pipeline stage: the PP Index column, else the stage rows, else one group.
  std::map<std::int64_t, StageFigures> stages;
  std::vector<double> all_steps;
  EvidenceRef series;
  series.kind = "series";
  series.id = source_;
  for (const auto& [rank, r] : ranks_) {
    if (r.rows == 0) continue;
    std::int64_t stage = r.stage;
    if (stage < 0)
      if (const auto it = stage_of_rank_.find(rank); it != stage_of_rank_.end()) stage = it->second;
    StageFigures& s = stages[stage];
    s.stage = stage;
    const double n = r.rows * 1000.0;
    s.ids.push_back(rank);
    s.step.push_back(r.step_ms());
    s.compute.push_back(r.computing_us / n);
    s.comm.push_back(r.communication_us / n);
    s.exclude_receive.push_back(r.exclude_receive_us / n);
    s.free.push_back(r.free_us / n);
    s.bubble.push_back(r.bubble_us / n);
    s.has_bubble = s.has_bubble || r.has_bubble;
    all_steps.push_back(r.step_ms());
    FeatureSet set{"rank", {}};
    const Labels labels{{"rank", std::to_string(rank)}};
    const std::vector<EvidenceRef> refs{rank_ref(rank), series};
    set.features.push_back({"rank.step_time", s.step.back(), "ms", refs, labels});
    set.features.push_back({"rank.compute_time", s.compute.back(), "ms", refs, labels});
    set.features.push_back({"rank.collective_time", s.comm.back(), "ms", refs, labels});
    set.features.push_back({"rank.outside_model_time", s.free.back(), "ms", refs, labels});
    if (r.has_bubble) set.features.push_back({"rank.bubble_time", s.bubble.back(), "ms", refs, labels});
    if (s.step.back() > 0)
      set.features.push_back({"rank.free_time_share", s.free.back() / s.step.back(), "ratio", refs, labels});
    rank_sets.push_back(std::move(set));
  }
  if (all_steps.size() < 2) {
    rank_sets.clear();
    return;
  }
  const double step_med = median_of(all_steps);
  if (step_med <= 0) return;
  run.push_back({"step.time", step_med, "ms", {series}, {}});
  run.push_back({"rank.traced_count", static_cast<double>(all_steps.size()), "count", {series}, {}});
  run.push_back({"pipeline.stages", static_cast<double>(stages.size()), "count", {series}, {}});

  // The largest of each cross-rank figure over the stages, with the rank and stage it points at.
  struct Worst {
    double value = -1;
    std::vector<EvidenceRef> evidence;
    Labels labels;
    std::int64_t rank = -1;
  };
  Worst idle, heavy, gap, bubble, compute_gap;
  double bubble_ms = 0;
  for (const auto& [id, s] : stages) {
    const double stage_step = median_of(s.step);
    if (stage_step <= 0) continue;
    if (s.has_bubble) {
      const double share = median_of(s.bubble) / stage_step;
      if (share > bubble.value) {
        bubble = {share, {s.ref(), series}, {{"stage", s.ref().id}}, -1};
        bubble_ms = median_of(s.bubble);
      }
    }
    if (s.ids.size() < 2) continue;
    const std::size_t most_idle = index_of_max(s.free);
    const double skew = (s.free[most_idle] - median_without(s.free, most_idle)) / stage_step;
    if (skew > idle.value) idle = {skew, {rank_ref(s.ids[most_idle]), s.ref(), series}, {}, s.ids[most_idle]};
    const std::size_t heaviest = index_of_max(s.compute);
    if (const double others = median_without(s.compute, heaviest);
        others > 0 && s.compute[heaviest] / others > heavy.value)
      heavy = {
          s.compute[heaviest] / others, {rank_ref(s.ids[heaviest]), s.ref(), series}, {}, s.ids[heaviest]};
    // msprof-analyze's slow-rank rule: per dimension (max - min) / mean step time. The slow rank is the one
    // that computes or idles most, or, in the collectives, the one that waits least (it arrived last).
    double mean_step = 0;
    for (const double v : s.step) mean_step += v / static_cast<double>(s.step.size());
    struct Dimension {
      const char* name;
      const std::vector<double>* values;
      bool slow_is_max;
    };
    for (const Dimension& d :
         {Dimension{"computing", &s.compute, true}, Dimension{"communication", &s.exclude_receive, false},
          Dimension{"free", &s.free, true}}) {
      const auto& v = *d.values;
      const std::size_t hi = index_of_max(v), lo = index_of_min(v);
      const double g = (v[hi] - v[lo]) / mean_step;
      const std::size_t slow = d.slow_is_max ? hi : lo;
      const std::size_t fast = d.slow_is_max ? lo : hi;
      if (std::string_view(d.name) == "computing" && g > compute_gap.value)
        compute_gap = {g, {rank_ref(s.ids[slow]), rank_ref(s.ids[fast]), s.ref(), series}, {}, s.ids[slow]};
      if (g > gap.value)
        gap = {g,
               {rank_ref(s.ids[slow]), rank_ref(s.ids[fast]), s.ref(), series},
               {{"dimension", d.name}, {"stage", s.ref().id}},
               s.ids[slow]};
    }
  }
  // rank.outside_model_skew is not emitted: Free is one of the gap's dimensions, and a second variable read
  // from the same column would count one observation twice. It stays in the details as the idle skew.
  if (idle.value >= 0) run.push_back({"rank.idle_skew", idle.value, "ratio", idle.evidence, {}});
  if (heavy.value >= 0) {
    run.push_back({"rank.compute_imbalance", heavy.value, "ratio", heavy.evidence, {}});
    run.push_back({"rank.forward_imbalance", heavy.value, "ratio", heavy.evidence, {}});
  }
  if (gap.value >= 0) {
    run.push_back({"rank.step_split_gap", gap.value, "ratio", gap.evidence, gap.labels});
    if (with_late_rank)
      run.push_back({"rank.late_rank", static_cast<double>(gap.rank), "rank", gap.evidence, {}});
  }
  // The compute dimension alone (msprof-analyze flags 5 %): equal work that takes one rank longer points at
  // its device, where the others' waiting in the collectives (the gap's usual dimension) does not say why.
  if (compute_gap.value >= 0)
    run.push_back({"rank.compute_gap", compute_gap.value, "ratio", compute_gap.evidence, {}});
  if (bubble.value >= 0) {
    run.push_back({"pipeline.bubble_share", bubble.value, "ratio", bubble.evidence, bubble.labels});
    run.push_back({"pipeline.bubble_time", bubble_ms, "ms", bubble.evidence, bubble.labels});
  }
}

}  // namespace cann_debug::plugins::distributed
