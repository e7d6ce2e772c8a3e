// The distributed_features component through the SDK harness: what it emits for hand-made runs.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "cann_debug/manifest.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "distributed_features.hpp"
#include "test_events.hpp"

namespace cann_debug::plugins {
namespace {

using distributed::test::ddp_step;
using nlohmann::json;

constexpr std::size_t kRecords = 0, kEvents = 1, kConfig = 2;

Envelope events_of(std::int64_t rank, std::int64_t loading_us, std::int64_t forward_us, std::int64_t comm_us,
                   bool comm_after_backward = false) {
  EventBatch b;
  b.source_path = "rank" + std::to_string(rank) + ".trace.json";
  for (std::int64_t step = 6; step < 9; ++step)
    for (Event& e :
         ddp_step(step, (step - 6) * 60000, loading_us, forward_us, comm_us, rank, comm_after_backward))
      b.events.push_back(std::move(e));
  return Envelope::make(CorrelationKey{}, std::move(b));
}

Envelope log_of(const std::map<std::int64_t, int>& batch_by_rank) {
  RecordBatch b;
  b.source_path = "metrics.jsonl";
  for (std::int64_t step = 0; step < 4; ++step)
    for (const auto& [rank, size] : batch_by_rank) {
      Record r;
      r.key.step_id = step;
      r.key.rank = static_cast<std::int32_t>(rank);
      r.line = static_cast<std::int64_t>(b.records.size()) + 1;
      r.fields = {{"step", step}, {"rank", rank}, {"batch_size", size}, {"loss", "nan"}};
      b.records.push_back(std::move(r));
    }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

Envelope config_of(json document) {
  return Envelope::make(CorrelationKey{}, RunConfiguration{"config.json", std::move(document)});
}

struct Output {
  std::vector<FeatureSet> sets;
  const FeatureSet& run() const { return sets.back(); }
  std::optional<Feature> get(const std::string& name) const {
    for (const Feature& f : run().features)
      if (f.name == name) return f;
    return std::nullopt;
  }
  double value(const std::string& name) const {
    const auto f = get(name);
    EXPECT_TRUE(f.has_value()) << "missing feature " << name;
    return f ? f->value : -1.0;
  }
};

Output run(const std::vector<std::pair<std::size_t, Envelope>>& inputs) {
  testing::Harness h(distributed_features_factory(), json::object());
  h.run_processor(inputs);
  return {h.outputs_of<FeatureSet>(0)};
}

TEST(DistributedFeatures, ManifestIsSound) {
  EXPECT_TRUE(check_manifest(distributed_features_factory().manifest()).empty());
}

TEST(DistributedFeatures, StragglerStandsOutOutsideTheModelAndIsTheLateRank) {
  // Rank 1 loads data for 30 ms per step; rank 0 then waits 30 ms longer in the allreduce.
  const Output out = run({{kEvents, events_of(0, 1000, 5000, 34000)},
                          {kEvents, events_of(1, 30000, 5000, 4000)},
                          {kRecords, log_of({{0, 32}, {1, 32}})}});
  ASSERT_EQ(out.sets.size(), 3u);  // rank 0, rank 1, run
  EXPECT_EQ(out.sets[0].scope, "rank");
  EXPECT_EQ(out.sets[0].features.front().labels.at("rank"), "0");
  EXPECT_EQ(out.run().scope, "run");
  EXPECT_NEAR(out.value("step.time"), 50.0, 1e-9);
  // Outside the model: rank 0 = 50 - 45 = 5 ms, rank 1 = 50 - 16 = 34 ms -> (34 - 5) / 50.
  EXPECT_NEAR(out.value("rank.outside_model_skew"), 29.0 / 50.0, 1e-9);
  EXPECT_NEAR(out.value("rank.data_loading_skew"), 29.0 / 50.0, 1e-9);
  EXPECT_NEAR(out.value("rank.forward_imbalance"), 1.0, 1e-9);
  EXPECT_NEAR(out.value("rank.collective_wait_skew"), 30.0 / 50.0, 1e-9);
  EXPECT_EQ(out.value("rank.late_rank"), 1.0);
  EXPECT_EQ(out.get("rank.outside_model_skew")->evidence.front().id, "rank1");
  EXPECT_EQ(out.get("rank.outside_model_skew")->evidence.front().first_step, 6);
  EXPECT_EQ(out.get("rank.outside_model_skew")->evidence.front().last_step, 8);
  EXPECT_NEAR(out.value("rank.slow_rank_vote_share"), 1.0, 1e-9);
  EXPECT_NEAR(out.value("comm.exposed_ratio"), 0.0, 1e-9);
  EXPECT_EQ(out.value("comm.collectives_per_step"), 1.0);
  EXPECT_NEAR(out.value("rank.batch_size_imbalance"), 1.0, 1e-9);
  EXPECT_FALSE(out.get("rank.busy_time_dixon_q").has_value());  // needs three ranks
}

TEST(DistributedFeatures, HeavierRankShowsInForwardTimeAndBatchSize) {
  const Output out = run({{kEvents, events_of(0, 1000, 12000, 4000)},
                          {kEvents, events_of(1, 1000, 4000, 12000)},
                          {kEvents, events_of(2, 1000, 4000, 12000)},
                          {kRecords, log_of({{0, 96}, {1, 32}, {2, 32}})}});
  EXPECT_NEAR(out.value("rank.forward_imbalance"), 3.0, 1e-9);
  EXPECT_NEAR(out.value("rank.batch_size_imbalance"), 3.0, 1e-9);
  EXPECT_EQ(out.get("rank.batch_size_imbalance")->evidence.front().id, "rank0");
  EXPECT_EQ(out.value("rank.late_rank"), 0.0);
  EXPECT_NEAR(out.value("rank.outside_model_skew"), 0.0, 1e-9);
  EXPECT_TRUE(out.get("rank.busy_time_dixon_q").has_value());
}

// A mixture-of-experts layer in the forward of every step: rank `rank`'s experts compute for `expert_us`,
// the rest of the forward for `dense_us`, and the rank waits `wait_us` in the MoE's all_to_all.
Envelope moe_events_of(std::int64_t rank, std::int64_t expert_us, std::int64_t dense_us,
                       std::int64_t wait_us) {
  EventBatch b;
  b.source_path = "rank" + std::to_string(rank) + ".trace.json";
  for (std::int64_t step = 6; step < 9; ++step) {
    const std::int64_t t0 = (step - 6) * 60000, fw = t0 + 1000;
    for (Event& e : ddp_step(step, t0, 1000, dense_us + expert_us + wait_us, 4000, rank))
      b.events.push_back(std::move(e));
    b.events.push_back(distributed::test::span("moe.expert" + std::to_string(2 * rank), fw + dense_us / 2,
                                               expert_us, 1, rank));
    b.events.push_back(
        distributed::test::span("gloo:all_to_all", fw + dense_us / 2 + expert_us, wait_us, 2, rank));
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

TEST(DistributedFeatures, ARankWhoseExpertsGetMostTokensStandsOutAgainstItsOwnDenseCompute) {
  // Rank 1's experts compute 4x longer, the rest of its forward as long as rank 0's: rank 0 waits for it.
  Output out =
      run({{kEvents, moe_events_of(0, 2000, 4000, 6000)}, {kEvents, moe_events_of(1, 8000, 4000, 200)}});
  EXPECT_NEAR(out.value("rank.expert_load_skew"), 4.0, 1e-9);
  EXPECT_EQ(out.value("rank.expert_hot_rank"), 1.0);
  EXPECT_EQ(out.get("rank.expert_load_skew")->evidence.front().id, "rank1");
  // A slow rank computes everything longer, its experts included: no skew of the experts' load.
  out = run({{kEvents, moe_events_of(0, 2000, 4000, 6000)}, {kEvents, moe_events_of(1, 4000, 8000, 200)}});
  EXPECT_NEAR(out.value("rank.expert_load_skew"), 1.0, 1e-9);
  // Experts that got no token: the skew is floored, not infinite.
  out = run({{kEvents, moe_events_of(0, 0, 4000, 6000)}, {kEvents, moe_events_of(1, 8000, 4000, 200)}});
  EXPECT_FALSE(out.get("rank.expert_load_skew").has_value());  // one rank with experts is no comparison
  out = run({{kEvents, moe_events_of(0, 10, 4000, 6000)}, {kEvents, moe_events_of(1, 8000, 4000, 200)}});
  EXPECT_NEAR(out.value("rank.expert_load_skew"), 20.0, 1e-9);
  // A dense model has no expert load at all.
  out = run({{kEvents, events_of(0, 1000, 5000, 4000)}, {kEvents, events_of(1, 1000, 5000, 4000)}});
  EXPECT_FALSE(out.get("rank.expert_load_skew").has_value());
}

// Per-step log rows of two ranks with the router's token counts under `key`: `counts(step, rank)`.
Envelope token_log_of(const std::string& key, const std::function<json(std::int64_t, std::int64_t)>& counts) {
  RecordBatch b;
  b.source_path = "metrics.jsonl";
  for (std::int64_t step = 0; step < 3; ++step)
    for (std::int64_t rank = 0; rank < 2; ++rank) {
      Record r;
      r.key.step_id = step;
      r.key.rank = static_cast<std::int32_t>(rank);
      r.line = static_cast<std::int64_t>(b.records.size()) + 1;
      r.fields = {{"step", step}, {"rank", rank}, {"batch_size", 16}, {key, counts(step, rank)}};
      b.records.push_back(std::move(r));
    }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

TEST(DistributedFeatures, TheRoutersTokenCountsGiveTheBusiestExpertOverTheMean) {
  // Each rank logs its own tokens per expert; summed over ranks and steps expert 2 gets 3x the mean.
  Output out = run({{kRecords, token_log_of("moe_tokens_per_expert", [](std::int64_t, std::int64_t rank) {
                       return rank == 0 ? json{10, 10, 60, 0} : json{0, 10, 60, 10};
                     })}});
  EXPECT_NEAR(out.value("moe.expert_token_max_over_mean"), 3.0, 1e-9);
  EXPECT_EQ(out.value("moe.expert_token_hot_expert"), 2.0);
  EXPECT_EQ(out.value("moe.expert_count"), 4.0);
  EXPECT_EQ(out.get("moe.expert_token_max_over_mean")->evidence.size(), 2u);  // one per rank's log
  EXPECT_EQ(out.get("moe.expert_token_max_over_mean")->evidence.front().last_step, 2);
  // DeepSpeed's exp_counts, every rank logging the global counts: the ratio is the same as one rank's.
  out = run({{kRecords, token_log_of("exp_counts", [](std::int64_t step, std::int64_t) {
                return step == 0 ? json{30, 10} : json{20, 20};
              })}});
  EXPECT_NEAR(out.value("moe.expert_token_max_over_mean"), 70.0 / 60.0, 1e-9);
  // A row whose list has another length (another layer), a negative or non-numeric count is left out.
  out = run({{kRecords, token_log_of("tokens_per_expert", [](std::int64_t step, std::int64_t) {
                if (step == 1) return json{1, 2, 3};
                if (step == 2) return json{5, "x"};
                return json{10, 30};
              })}});
  EXPECT_NEAR(out.value("moe.expert_token_max_over_mean"), 30.0 / 20.0, 1e-9);
  // No counts, or a single expert: no feature.
  out = run({{kRecords, log_of({{0, 32}, {1, 32}})}});
  EXPECT_FALSE(out.get("moe.expert_token_max_over_mean").has_value());
  out = run({{kRecords, token_log_of("exp_counts", [](std::int64_t, std::int64_t) { return json{7}; })}});
  EXPECT_FALSE(out.get("moe.expert_token_max_over_mean").has_value());
}
TEST(DistributedFeatures, CommunicationAfterBackwardIsExposed) {
  const Output out = run(
      {{kEvents, events_of(0, 1000, 5000, 20000, true)}, {kEvents, events_of(1, 1000, 5000, 20000, true)}});
  EXPECT_NEAR(out.value("comm.exposed_ratio"), 1.0, 1e-9);
  EXPECT_NEAR(out.value("comm.exposed_step_share"), 20.0 / 50.0, 1e-9);
  EXPECT_FALSE(out.get("rank.batch_size_imbalance").has_value());  // no step log
}

TEST(DistributedFeatures, ConfigOnlyAddsMessageSizeAndBandwidth) {
  const auto events0 = events_of(0, 1000, 5000, 10000);
  const auto events1 = events_of(1, 1000, 5000, 8000);
  const Output without = run({{kEvents, events0}, {kEvents, events1}});
  EXPECT_FALSE(without.get("comm.mean_message_bytes").has_value());
  EXPECT_FALSE(without.get("comm.allreduce_bus_bandwidth").has_value());
  const Output with =
      run({{kEvents, events0}, {kEvents, events1}, {kConfig, config_of({{"param_bytes", 4e6}})}});
  EXPECT_NEAR(with.value("comm.mean_message_bytes"), 4e6, 1e-6);
  // 2 (n - 1) / n * 4 MB over the last-arriving rank's 8 ms.
  EXPECT_NEAR(with.value("comm.allreduce_bus_bandwidth"), 4e6 / 8e-3, 1e-3);
  // Everything else is the same with and without the config.
  for (const Feature& f : without.run().features) EXPECT_EQ(with.get(f.name)->value, f.value) << f.name;
}

TEST(DistributedFeatures, NoInputGivesAnEmptyRunSetAndOneRankNoSkews) {
  EXPECT_TRUE(run({}).run().features.empty());
  const Output one = run({{kEvents, events_of(0, 1000, 5000, 10000)}});
  EXPECT_TRUE(one.get("step.time").has_value());
  EXPECT_FALSE(one.get("rank.outside_model_skew").has_value());
  EXPECT_FALSE(one.get("rank.late_rank").has_value());
}

TEST(DistributedFeatures, UnrankedTracesAreKeptApartBySource) {
  EventBatch a, b;
  a.source_path = "x.json";
  b.source_path = "y.json";
  for (Event& e : ddp_step(1, 0, 1000, 5000, 4000, -1)) a.events.push_back(e);
  for (Event& e : ddp_step(1, 0, 30000, 5000, 4000, -1)) b.events.push_back(e);
  const Output out = run({{kEvents, Envelope::make(CorrelationKey{}, std::move(a))},
                          {kEvents, Envelope::make(CorrelationKey{}, std::move(b))}});
  EXPECT_EQ(out.value("rank.traced_count"), 2.0);
}

// Records as the ascend_communication reader writes them (docs/readers.md), one op of two ranks: rank 0
// waits 90 % of the op for rank 1; rank 1's HCCS link runs at a quarter of rank 0's.
Envelope ascend_records() {
  RecordBatch b;
  b.source_path = "cluster_communication.json";
  b.schema = "ascend.communication/1";
  auto op = [](std::int64_t rank, double wait_ns, double hccs_time_ns, double large) {
    Record r;
    r.key.rank = static_cast<std::int32_t>(rank);
    r.key.step_id = 3;
    r.fields = {
        {"step", 3},
        {"rank", rank},
        {"op", "hcom_allReduce__1"},
        {"aggregate", false},
        {"elapse_time_ns", 100e6},
        {"wait_time_ns", wait_ns},
        {"wait_time_ratio", wait_ns / 100e6},
        {"bandwidth",
         {{"HCCS",
           {{"transit_size_bytes", 8e6}, {"transit_time_ns", hccs_time_ns}, {"large_packet_ratio", large}}},
          {"RDMA", {{"transit_size_bytes", 0}, {"transit_time_ns", 0}, {"large_packet_ratio", 0}}}}}};
    return r;
  };
  b.records = {op(0, 90e6, 1e6, 0.0), op(1, 1e6, 4e6, 0.5)};
  Record total = op(0, 90e6, 1e6, 1.0);  // the per-rank file's aggregate: must not count twice
  total.fields["aggregate"] = true;
  b.records.push_back(total);
  return Envelope::make(CorrelationKey{}, std::move(b));
}

TEST(DistributedFeatures, AscendCommunicationRecordsGiveLinkPacketAndWaitFeatures) {
  const Output out = run({{kRecords, ascend_records()}});
  // Rank 1: 8 MB in 4 ms = 2 GB/s against the other rank's 8 GB/s (not the 5 GB/s median of both).
  EXPECT_NEAR(out.value("comm.link_bandwidth_ratio"), 2.0 / 8.0, 1e-9);
  EXPECT_EQ(out.get("comm.link_bandwidth_ratio")->evidence.front().id, "HCCS:rank1");
  EXPECT_NEAR(out.value("comm.large_packet_ratio"), 0.25, 1e-9);
  EXPECT_NEAR(out.value("comm.wait_time_ratio_spread"), 0.89, 1e-9);
  EXPECT_EQ(out.value("rank.late_rank"), 1.0);
  EXPECT_FALSE(out.get("rank.batch_size_imbalance").has_value());  // not a step log
}

TEST(DistributedFeatures, RejectsAnUnexpectedMessageType) {
  testing::Harness h(distributed_features_factory(), json::object());
  EXPECT_THROW(h.run_processor({{kEvents, Envelope::make(CorrelationKey{}, MetricBatch{})}}),
               std::runtime_error);
}

}  // namespace
}  // namespace cann_debug::plugins
