#include "feature_builder.hpp"

#include <algorithm>
#include <map>
#include <numeric>
#include <string>

#include "collective_exposure.hpp"
#include "rank_statistics.hpp"

namespace cann_debug::plugins::distributed {
namespace {

constexpr double kNsPerMs = 1e6;

// Median over the profiled steps of one rank.
struct RankSummary {
  std::int64_t rank = -1;
  std::string source;
  std::int64_t first_step = -1, last_step = -1;
  TimestampNs start_ns = kNoTimestamp, end_ns = kNoTimestamp;  // trace clock of that rank
  double step_ms = 0, data_loading_ms = 0, forward_ms = 0, backward_ms = 0, backward_compute_ms = 0,
         optimizer_ms = 0, compute_ms = 0, collective_ms = 0, exposed_collective_ms = 0, outside_model_ms = 0,
         collective_calls = 0;
  bool device_timeline = false;  // collective and idle figures from the GPU kernels
  double kernel_compute_ms = 0;
  double expert_ms = 0;  // the MoE experts' computation in a step, least over the steps (0: no MoE seen)
  double dense_ms = 0;   // the compute it is compared with (kernels, else the forward) without the experts
  double total_step_ns = 0, total_collective_ns = 0, total_exposed_ns = 0, total_in_backward_ns = 0;
  std::vector<StepBreakdown> steps;
};

template <typename F>
double median_over_steps(const std::vector<StepBreakdown>& steps, F field) {
  std::vector<double> v;
  for (const auto& s : steps) v.push_back(static_cast<double>(field(s)));
  return median_of(std::move(v));
}

template <typename F>
double median_ms(const std::vector<StepBreakdown>& steps, F field) {
  return median_over_steps(steps, field) / kNsPerMs;
}

RankSummary summarize(std::int64_t rank, const RankTrace& trace) {
  RankSummary r;
  r.rank = rank;
  r.source = trace.source();
  r.steps = trace.steps();
  const auto& s = r.steps;
  r.first_step = s.front().step;
  r.last_step = s.back().step;
  r.start_ns = s.front().start_ns;
  r.end_ns = s.back().start_ns + s.back().step_ns;
  r.step_ms = median_ms(s, [](const StepBreakdown& b) { return b.step_ns; });
  r.data_loading_ms = median_ms(s, [](const StepBreakdown& b) { return b.data_loading_ns; });
  r.forward_ms = median_ms(s, [](const StepBreakdown& b) { return b.forward_ns; });
  r.backward_ms = median_ms(s, [](const StepBreakdown& b) { return b.backward_ns; });
  r.backward_compute_ms = median_ms(s, [](const StepBreakdown& b) { return b.backward_compute_ns; });
  r.optimizer_ms = median_ms(s, [](const StepBreakdown& b) { return b.optimizer_ns; });
  r.compute_ms = median_ms(s, [](const StepBreakdown& b) { return b.compute_ns(); });
  r.collective_ms = median_ms(s, [](const StepBreakdown& b) { return b.collective_ns; });
  r.exposed_collective_ms = median_ms(s, [](const StepBreakdown& b) { return b.exposed_collective_ns; });
  r.outside_model_ms = median_ms(s, [](const StepBreakdown& b) { return b.outside_model_ns; });
  r.collective_calls = median_over_steps(s, [](const StepBreakdown& b) { return b.collective_calls; });
  r.device_timeline = trace.has_device_timeline();
  r.kernel_compute_ms = median_ms(s, [](const StepBreakdown& b) { return b.kernel_compute_ns; });
  // The least over the profiled steps: the work a rank's tokens take. A rank descheduled on a shared CPU
  // inflates some steps, never shortens one.
  r.expert_ms = r.dense_ms = -1;
  for (const auto& b : s) {
    const std::int64_t compute = b.expert_on_device ? b.kernel_compute_ns : b.forward_compute_ns;
    const double expert = static_cast<double>(b.expert_ns) / kNsPerMs;
    const double dense = static_cast<double>(std::max<std::int64_t>(0, compute - b.expert_ns)) / kNsPerMs;
    r.expert_ms = r.expert_ms < 0 ? expert : std::min(r.expert_ms, expert);
    r.dense_ms = r.dense_ms < 0 ? dense : std::min(r.dense_ms, dense);
  }
  for (const auto& b : s) {
    r.total_step_ns += static_cast<double>(b.step_ns);
    r.total_collective_ns += static_cast<double>(b.collective_ns);
    r.total_exposed_ns += static_cast<double>(b.exposed_collective_ns);
    r.total_in_backward_ns += static_cast<double>(b.collective_in_backward_ns);
  }
  return r;
}

std::string rank_id(std::int64_t rank) {
  return "rank" + std::to_string(rank);
}

EvidenceRef rank_ref(const RankSummary& r) {
  return {"rank", rank_id(r.rank), r.start_ns, r.end_ns, r.first_step, r.last_step};
}

EvidenceRef steps_ref(const RankSummary& r) {
  return {"steps",    r.source.empty() ? rank_id(r.rank) : r.source, r.start_ns, r.end_ns, r.first_step,
          r.last_step};
}

Feature feature(std::string name, double value, std::string unit, std::vector<EvidenceRef> evidence,
                Labels labels = {}) {
  return {std::move(name), value, std::move(unit), std::move(evidence), std::move(labels)};
}

FeatureSet rank_set(const RankSummary& r, const RankLog* log) {
  FeatureSet set{"rank", {}};
  const Labels labels{{"rank", std::to_string(r.rank)}};
  const std::vector<EvidenceRef> ev{steps_ref(r)};
  auto add = [&](const char* name, double value, const char* unit) {
    set.features.push_back(feature(name, value, unit, ev, labels));
  };
  add("rank.step_time", r.step_ms, "ms");
  add("rank.data_loading_time", r.data_loading_ms, "ms");
  add("rank.forward_time", r.forward_ms, "ms");
  add("rank.backward_time", r.backward_ms, "ms");
  add("rank.backward_compute_time", r.backward_compute_ms, "ms");
  add("rank.optimizer_time", r.optimizer_ms, "ms");
  add("rank.collective_time", r.collective_ms, "ms");
  add("rank.exposed_collective_time", r.exposed_collective_ms, "ms");
  add("rank.outside_model_time", r.outside_model_ms, "ms");
  add("rank.collectives_per_step", r.collective_calls, "count");
  add("rank.free_time_share", r.step_ms > 0 ? r.outside_model_ms / r.step_ms : 0.0, "ratio");
  if (r.device_timeline) add("rank.kernel_compute_time", r.kernel_compute_ms, "ms");
  if (r.expert_ms > 0) add("rank.expert_time", r.expert_ms, "ms");
  if (log != nullptr && !log->batch_sizes.empty())
    set.features.push_back(feature(
        "rank.batch_size", median_of(log->batch_sizes), "samples",
        {{"steps", log->source, log->first_time_ns, log->last_time_ns, log->first_step, log->last_step}},
        labels));
  return set;
}

// Mixture of experts: the rank whose experts computed longest against the others, relative to the same
// comparison of the rest of the compute. A slow rank or a bigger batch makes both slower alike (about 1);
// a router that sends most tokens to one rank's experts makes only that rank's expert time grow.
void expert_load(const std::vector<RankSummary>& ranks, std::vector<Feature>& out) {
  std::vector<double> expert, dense;
  for (const auto& r : ranks) {
    expert.push_back(r.expert_ms);
    dense.push_back(r.dense_ms);
  }
  if (std::count_if(expert.begin(), expert.end(), [](double v) { return v > 0; }) < 2) return;
  const std::size_t hot = index_of_max(expert);
  // A rank whose experts got no token at all computed next to nothing: floor the others' time at 5% of the
  // hot rank's, so the skew stays finite (20) and still reads as extreme.
  const double others = std::max(median_without(expert, hot), 0.05 * expert[hot]);
  const double dense_others = median_without(dense, hot);
  const double dense_ratio = dense_others > 0 && dense[hot] > 0 ? dense[hot] / dense_others : 1.0;
  out.push_back(feature("rank.expert_load_skew", (expert[hot] / others) / dense_ratio, "ratio",
                        {rank_ref(ranks[hot]), steps_ref(ranks[hot])}));
  out.push_back(
      feature("rank.expert_hot_rank", static_cast<double>(ranks[hot].rank), "rank", {rank_ref(ranks[hot])}));
}

// Features comparing ranks (need two or more traced ranks).
void add_cross_rank(const std::vector<RankSummary>& ranks, std::vector<Feature>& out) {
  if (ranks.size() < 2) return;
  std::vector<double> step, outside, loading, forward, compute, collective, busy;
  for (const auto& r : ranks) {
    step.push_back(r.step_ms);
    outside.push_back(r.outside_model_ms);
    loading.push_back(r.data_loading_ms);
    forward.push_back(r.forward_ms);
    compute.push_back(r.compute_ms);
    collective.push_back(r.collective_ms);
    busy.push_back(r.step_ms - r.collective_ms);
  }
  const double step_med = median_of(step);
  if (step_med <= 0) return;
  auto skew = [&](const char* name, const std::vector<double>& v) {
    const std::size_t i = index_of_max(v);
    out.push_back(feature(name, (v[i] - median_without(v, i)) / step_med, "ratio",
                          {rank_ref(ranks[i]), steps_ref(ranks[i])}));
  };
  auto imbalance = [&](const char* name, const std::vector<double>& v) {
    const std::size_t i = index_of_max(v);
    const double others = median_without(v, i);
    if (others > 0)
      out.push_back(feature(name, v[i] / others, "ratio", {rank_ref(ranks[i]), steps_ref(ranks[i])}));
  };
  expert_load(ranks, out);
  skew("rank.outside_model_skew", outside);
  skew("rank.data_loading_skew", loading);
  imbalance("rank.forward_imbalance", forward);
  imbalance("rank.compute_imbalance", compute);

  // Inside a collective every rank waits for the last one to arrive: the late rank spends the least
  // time in it, the earliest the most.
  const std::size_t late = index_of_min(collective);
  const std::size_t waiting = index_of_max(collective);
  if (collective[waiting] > 0) {  // without traced collectives nobody waited for anybody
    out.push_back(feature("rank.collective_wait_skew", (collective[waiting] - collective[late]) / step_med,
                          "ratio", {rank_ref(ranks[late]), rank_ref(ranks[waiting])}));
    out.push_back(feature("rank.late_rank", static_cast<double>(ranks[late].rank), "rank",
                          {rank_ref(ranks[late]), steps_ref(ranks[late])}));
    out.push_back(feature("rank.late_rank_collective_share", collective[late] / collective[waiting], "ratio",
                          {rank_ref(ranks[late]), rank_ref(ranks[waiting])}));
  }

  // Slow-rank votes: in each profiled step present on every rank, which rank was busy longest outside
  // collectives? The share of steps won by the most frequent winner.
  std::map<std::int64_t, std::map<std::size_t, double>> busy_by_step;
  for (std::size_t i = 0; i < ranks.size(); ++i)
    for (const auto& b : ranks[i].steps)
      busy_by_step[b.step][i] = static_cast<double>(b.step_ns - b.collective_ns);
  std::map<std::size_t, int> wins;
  int voted_steps = 0;
  for (const auto& [s, by_rank] : busy_by_step) {
    if (by_rank.size() != ranks.size()) continue;
    const auto best = std::max_element(by_rank.begin(), by_rank.end(),
                                       [](const auto& a, const auto& b) { return a.second < b.second; });
    ++wins[best->first];
    ++voted_steps;
  }
  if (voted_steps > 0) {
    const auto top = std::max_element(wins.begin(), wins.end(),
                                      [](const auto& a, const auto& b) { return a.second < b.second; });
    out.push_back(feature("rank.slow_rank_vote_share", static_cast<double>(top->second) / voted_steps,
                          "ratio", {rank_ref(ranks[top->first]), steps_ref(ranks[top->first])}));
  }
  if (ranks.size() >= 3)
    out.push_back(
        feature("rank.busy_time_dixon_q", dixon_q_of_max(busy), "", {rank_ref(ranks[index_of_max(busy)])}));
}

void add_communication(const std::vector<RankSummary>& ranks, const std::optional<RunConfig>& config,
                       std::vector<Feature>& out) {
  double step_ns = 0, collective_ns = 0, exposed_ns = 0, in_backward_ns = 0, cpu_collective_ns = 0;
  std::vector<double> calls, collective_ms;
  std::vector<EvidenceRef> ev;
  for (const auto& r : ranks) {
    step_ns += r.total_step_ns;
    collective_ns += r.total_collective_ns;
    exposed_ns += r.total_exposed_ns;
    if (!r.device_timeline) {
      in_backward_ns += r.total_in_backward_ns;
      cpu_collective_ns += r.total_collective_ns;
    }
    calls.push_back(r.collective_calls);
    collective_ms.push_back(r.collective_ms);
    ev.push_back(steps_ref(r));
  }
  if (step_ns <= 0) return;
  const double calls_per_step = median_of(calls);
  out.push_back(feature("comm.collectives_per_step", calls_per_step, "count", ev));
  out.push_back(feature("comm.collective_time_share", collective_ns / step_ns, "ratio", ev));
  out.push_back(feature("comm.exposed_step_share", exposed_ns / step_ns, "ratio", ev));
  std::vector<std::vector<StepBreakdown>> steps_by_rank;
  bool device = false;
  for (const auto& r : ranks) {
    steps_by_rank.push_back(r.steps);
    device = device || r.device_timeline;
  }
  const CollectiveExposure exposure = exposure_without_waits(steps_by_rank);
  if (exposure.collective_ns > 0)
    out.push_back(feature("comm.exposed_ratio", exposure.exposed_ns / exposure.collective_ns, "ratio", ev));
  // Whether communication starts while backward still computes (DDP's bucket hooks) or only after it: the
  // share of the collective work inside the backward range, on CPU timelines (device timelines have no
  // backward range of their own).
  if (cpu_collective_ns > 0)
    out.push_back(feature("comm.backward_overlap_share", in_backward_ns / cpu_collective_ns, "ratio", ev));
  // HTA's figure, waits included: 1 - comp_comm_overlap_pctg / 100 over the ranks' NCCL kernels.
  if (device && collective_ns > 0)
    out.push_back(feature("comm.exposed_ratio_with_waits", exposed_ns / collective_ns, "ratio", ev));
  if (!config || !config->param_bytes) return;
  std::vector<EvidenceRef> with_config = ev;
  with_config.push_back({"series", config->source.empty() ? "config" : config->source + "#param_bytes"});
  if (calls_per_step > 0)
    out.push_back(
        feature("comm.mean_message_bytes", *config->param_bytes / calls_per_step, "bytes", with_config));
  // Ring allreduce bus bandwidth (NCCL-tests convention): 2 (n - 1) / n of the gradient bytes cross each
  // rank's link per step; the last-arriving rank's collective time is the closest to the transfer itself.
  const double n = static_cast<double>(ranks.size());
  const double transfer_ms = collective_ms[index_of_min(collective_ms)];
  if (ranks.size() >= 2 && transfer_ms > 0)
    out.push_back(feature("comm.allreduce_bus_bandwidth",
                          2.0 * (n - 1.0) / n * *config->param_bytes / (transfer_ms / 1e3), "bytes/s",
                          with_config));
}

void add_batch_balance(const std::map<std::int64_t, RankLog>& logs, std::vector<Feature>& out) {
  std::vector<double> sizes;
  std::vector<std::int64_t> rank_of;
  for (const auto& [rank, log] : logs) {
    if (log.batch_sizes.empty()) continue;
    sizes.push_back(median_of(log.batch_sizes));
    rank_of.push_back(rank);
  }
  if (sizes.size() < 2) return;
  const std::size_t hi = index_of_max(sizes), lo = index_of_min(sizes);
  if (sizes[lo] <= 0) return;
  const RankLog& heavy = logs.at(rank_of[hi]);
  out.push_back(feature(
      "rank.batch_size_imbalance", sizes[hi] / sizes[lo], "ratio",
      {{"rank", rank_id(rank_of[hi]), heavy.first_time_ns, heavy.last_time_ns, heavy.first_step,
        heavy.last_step},
       {"steps", heavy.source, heavy.first_time_ns, heavy.last_time_ns, heavy.first_step, heavy.last_step}}));
}

// Mixture of experts, from the step log: the tokens the router sent to its busiest expert over the mean
// per expert, summed over every rank's rows and steps (a rank that logs the global counts and one that logs
// its own give the same ratio). 1 = balanced; Switch Transformer's capacity factor 1.25 drops tokens above
// it. Ranks whose count lists have another length than the first rank's (another layer) are left out.
void add_expert_tokens(const std::map<std::int64_t, RankLog>& logs, std::vector<Feature>& out) {
  std::vector<double> tokens;
  std::vector<EvidenceRef> ev;
  for (const auto& [rank, log] : logs) {
    if (log.expert_tokens.empty()) continue;
    if (tokens.empty()) tokens.assign(log.expert_tokens.size(), 0.0);
    if (log.expert_tokens.size() != tokens.size()) continue;
    for (std::size_t i = 0; i < tokens.size(); ++i) tokens[i] += log.expert_tokens[i];
    ev.push_back({"steps", log.source, log.first_time_ns, log.last_time_ns, log.first_step, log.last_step});
  }
  if (tokens.size() < 2) return;
  const double mean = std::accumulate(tokens.begin(), tokens.end(), 0.0) / static_cast<double>(tokens.size());
  if (!(mean > 0)) return;
  const std::size_t hot = index_of_max(tokens);
  out.push_back(feature("moe.expert_token_max_over_mean", tokens[hot] / mean, "ratio", ev));
  out.push_back(feature("moe.expert_token_hot_expert", static_cast<double>(hot), "expert", ev));
  out.push_back(feature("moe.expert_count", static_cast<double>(tokens.size()), "count", ev));
}

}  // namespace

std::vector<FeatureSet> build_feature_sets(const RunInputs& inputs) {
  std::vector<FeatureSet> sets;
  std::vector<RankSummary> ranks;
  for (const auto& [rank, trace] : inputs.traces) {
    if (trace.empty()) continue;
    ranks.push_back(summarize(rank, trace));
    const auto log = inputs.logs.find(rank);
    sets.push_back(rank_set(ranks.back(), log == inputs.logs.end() ? nullptr : &log->second));
  }
  FeatureSet run{"run", {}};
  if (!ranks.empty()) {
    std::vector<double> step;
    std::vector<EvidenceRef> ev;
    for (const auto& r : ranks) {
      step.push_back(r.step_ms);
      ev.push_back(steps_ref(r));
    }
    run.features.push_back(feature("step.time", median_of(step), "ms", ev));
    run.features.push_back(feature("rank.traced_count", static_cast<double>(ranks.size()), "count", ev));
    std::vector<EvidenceRef> device_ev;
    for (const auto& r : ranks)
      if (r.device_timeline) device_ev.push_back(steps_ref(r));
    if (!device_ev.empty())
      run.features.push_back(
          feature("rank.device_timeline_count", static_cast<double>(device_ev.size()), "count", device_ev));
    add_cross_rank(ranks, run.features);
    add_communication(ranks, inputs.config, run.features);
  }
  add_batch_balance(inputs.logs, run.features);
  add_expert_tokens(inputs.logs, run.features);
  // Ascend cluster profiles without rank traces: the step split per rank says who was idle, whose compute
  // was heavier and whom the others waited for (the late rank from it wins over the wait ratios below).
  const bool from_step_trace = ranks.size() < 2 && !inputs.step_trace.empty();
  if (from_step_trace) inputs.step_trace.features(sets, run.features, true);
  const bool named = std::any_of(run.features.begin(), run.features.end(),
                                 [](const Feature& f) { return f.name == "rank.late_rank"; });
  // Link bandwidth, packet sizes, wait ratios (the late rank only when nothing above named it).
  if (!inputs.ascend.empty()) inputs.ascend.features(run.features, !named);
  sets.push_back(std::move(run));
  return sets;
}

}  // namespace cann_debug::plugins::distributed
