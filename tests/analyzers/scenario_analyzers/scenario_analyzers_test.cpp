// Scenario analyzers: posterior + features + evidence -> one diagnosis with ranked causes, paths,
// evidence references, explanations and scenario details.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "analyzer_component.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using testing::Harness;

constexpr std::size_t kPosterior = 0, kFeatures = 1, kEvidence = 2;

Posterior posterior(double lr, double healthy, double clip) {
  Posterior p;
  p.graph = "training";
  p.marginals["root_cause"] = {{"healthy", healthy}, {"lr_too_high", lr}, {"grad_clip_too_low", clip}};
  p.marginals["loss_instability"] = {{"low", 0.1}, {"high", 0.9}};
  p.top_causes = {{"root_cause=lr_too_high", lr, {"root_cause=lr_too_high", "loss_instability=high"}}};
  p.evidence_ranking = {{"loss_instability", 2.5}, {"clip_hits", -0.3}};
  return p;
}

FeatureSet features() {
  FeatureSet fs;
  fs.scope = "run";
  Feature osc{"loss.oscillation_amplitude", 0.8, "ratio", {}, {}};
  EvidenceRef steps;
  steps.kind = "steps";
  steps.id = "loss";
  steps.first_step = 120;
  steps.last_step = 180;
  osc.evidence.push_back(steps);
  fs.features.push_back(osc);
  fs.features.push_back({"grad_norm.median", 3.2, "", {}, {}});
  Feature layer{"grad.layer_norm_median", 0.01, "", {}, {{"layer", "0.weight"}}};
  fs.features.push_back(layer);
  return fs;
}

Evidence evidence() {
  Evidence e;
  e.soft["loss_instability"] = {{"low", 0.2}, {"high", 0.8}};
  e.hard["clip_hits"] = "none";
  EvidenceRef ref;
  ref.kind = "series";
  ref.id = "loss";
  e.provenance["loss_instability"] = {ref};
  return e;
}

// What the engine says of its graph in the posterior: descriptions and the feature each variable reads.
Posterior posterior_with_graph(double lr, double healthy, double clip) {
  Posterior p = posterior(lr, healthy, clip);
  p.variables = {{.name = "root_cause", .states = {"healthy", "lr_too_high", "grad_clip_too_low"}},
                 {.name = "loss_instability",
                  .description = "the loss swings far around its trend",
                  .states = {"low", "high"},
                  .parents = {"root_cause"},
                  .feature = "loss.oscillation_amplitude"}};
  return p;
}

TEST(scenario_analyzers, RanksCausesWithPathEvidenceAndExplanation) {
  Harness h(training_analyzer_factory(), {});
  h.run_processor({{kFeatures, Envelope::make(CorrelationKey{}, features())},
                   {kEvidence, Envelope::make(CorrelationKey{}, evidence())},
                   {kPosterior, Envelope::make(CorrelationKey{}, posterior_with_graph(0.85, 0.1, 0.05))}});
  const auto out = h.outputs_of<Diagnosis>(0);
  ASSERT_EQ(out.size(), 1u);
  const Diagnosis& d = out[0];
  EXPECT_EQ(d.scenario, "training");
  EXPECT_FALSE(d.healthy);
  ASSERT_EQ(d.root_causes.size(), 3u);  // 0.05 is at the threshold: listed
  EXPECT_EQ(d.root_causes[0].id, "lr_too_high");
  EXPECT_DOUBLE_EQ(d.root_causes[0].confidence, 0.85);
  EXPECT_EQ(d.root_causes[1].id, "healthy");
  EXPECT_EQ(d.root_causes[0].path.back(), "loss_instability=high");
  // The feature's step window and the discretised variable's provenance both support the cause.
  ASSERT_GE(d.root_causes[0].evidence.size(), 2u);
  EXPECT_EQ(d.root_causes[0].evidence[0].first_step, 120);
  EXPECT_EQ(d.root_causes[0].evidence[1].kind, "series");
  EXPECT_NE(d.root_causes[0].explanation.find("loss_instability=high"), std::string::npos);
  EXPECT_NE(d.root_causes[0].explanation.find("swings far"), std::string::npos);
  EXPECT_NE(d.root_causes[0].explanation.find("loss.oscillation_amplitude = 0.8 ratio"), std::string::npos)
      << d.root_causes[0].explanation;
  // Details: gradient flow figures and the per-layer norms.
  EXPECT_DOUBLE_EQ(d.details["gradients"]["grad_norm.median"]["value"].get<double>(), 3.2);
  ASSERT_EQ(d.details["layers"].size(), 1u);
  EXPECT_EQ(d.details["layers"][0]["layer"], "0.weight");
  EXPECT_EQ(d.details["anomalies"][0]["ref"]["first_step"], 120);
}

TEST(scenario_analyzers, HealthyRunIsReportedHealthyWithItsConfidence) {
  Harness h(inference_analyzer_factory(), {{"max_causes", 2}});
  Posterior p = posterior(0.07, 0.9, 0.03);
  p.top_causes.clear();
  h.run_processor({{kPosterior, Envelope::make(CorrelationKey{}, p)}});
  const auto out = h.outputs_of<Diagnosis>(0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_TRUE(out[0].healthy);
  EXPECT_EQ(out[0].scenario, "inference");
  ASSERT_EQ(out[0].root_causes.size(), 2u);  // max_causes
  EXPECT_EQ(out[0].root_causes[0].id, "healthy");
  EXPECT_DOUBLE_EQ(out[0].root_causes[0].confidence, 0.9);
  EXPECT_EQ(out[0].root_causes[1].id, "lr_too_high");
}

// A server profiled from its first request: the details say what the profiler did and how the start
// features read around it.
TEST(scenario_analyzers, InferenceDetailsSayWhatTheProfilerDid) {
  Harness h(inference_analyzer_factory(), {});
  Posterior p = posterior(0.07, 0.9, 0.03);
  FeatureSet fs;
  fs.scope = "run";
  fs.features.push_back({"latency.profiled_from_first_call", 1.0, "flag", {}, {}});
  fs.features.push_back({"latency.profiler_overhead", 1.3, "ratio", {}, {}});
  fs.features.push_back({"latency.requests_after_profiler_stop", 22.0, "requests", {}, {}});
  h.run_processor(
      {{kFeatures, Envelope::make(CorrelationKey{}, fs)}, {kPosterior, Envelope::make(CorrelationKey{}, p)}});
  const auto out = h.outputs_of<Diagnosis>(0);
  ASSERT_EQ(out.size(), 1u);
  const auto& o = out[0].details["observations"];
  ASSERT_EQ(o.size(), 3u) << out[0].details.dump();
  EXPECT_EQ(o[0]["kind"], "profiler_from_first_call");
  EXPECT_NE(o[1]["text"].get<std::string>().find("1.30x"), std::string::npos);
  EXPECT_NE(o[2]["text"].get<std::string>().find("22 requests queued"), std::string::npos);
  // An overhead within 5% is no observation.
  Harness quiet(inference_analyzer_factory(), {});
  FeatureSet small;
  small.scope = "run";
  small.features.push_back({"latency.profiler_overhead", 1.02, "ratio", {}, {}});
  quiet.run_processor({{kFeatures, Envelope::make(CorrelationKey{}, small)},
                       {kPosterior, Envelope::make(CorrelationKey{}, p)}});
  EXPECT_FALSE(quiet.outputs_of<Diagnosis>(0).at(0).details.contains("observations"));
}

// The details of the training analyzer's diagnosis of a run with these run-scope features, under `p`.
json training_details_of(std::vector<Feature> run_features, const Posterior& p) {
  Harness h(training_analyzer_factory(), {});
  FeatureSet fs;
  fs.scope = "run";
  fs.features = std::move(run_features);
  h.run_processor(
      {{kFeatures, Envelope::make(CorrelationKey{}, fs)}, {kPosterior, Envelope::make(CorrelationKey{}, p)}});
  return h.outputs_of<Diagnosis>(0).at(0).details;
}

// A loader that does not reshuffle is stated as an observation whatever the verdict: the same batches one
// epoch apart, with the figures that show it; a fresh shuffle's loss gives no such line.
TEST(scenario_analyzers, TrainingDetailsSayTheBatchesRepeatEveryEpoch) {
  auto details_of = [](double autocorr, double zscore) {
    return training_details_of({{"loss.epoch_lag_residual_autocorr", autocorr, "ratio", {}, {}},
                                {"data.epoch_repeat_zscore", zscore, "sd", {}, {}}},
                               posterior(0.9, 0.05, 0.05));
  };
  const auto repeated = details_of(0.62, 4.1);
  ASSERT_TRUE(repeated.contains("observations")) << repeated.dump();
  EXPECT_EQ(repeated["observations"][0]["kind"], "epoch_repeat");
  EXPECT_NE(repeated["observations"][0]["text"].get<std::string>().find("0.62, 4.1 sd"), std::string::npos);
  EXPECT_EQ(details_of(0.2, 5.0)["observations"][0]["kind"], "epoch_repeat");  // the test alone suffices
  EXPECT_FALSE(details_of(0.1, 1.2).contains("observations"));
}

// A transient beyond the run's noise that the spike test did not count is said with where it was and how
// far above the noise it rose; a spike the test counted is said as a spike instead, and a rise within the
// noise not at all.
TEST(scenario_analyzers, TrainingDetailsSayTheLossRoseBeyondItsNoise) {
  auto details_of = [](double zscore, double spikes) {
    return training_details_of({{"loss.excursion_zscore",
                                 zscore,
                                 "sigmas",
                                 {{"steps", "loss.excursion", kNoTimestamp, kNoTimestamp, 250, 253}},
                                 {}},
                                {"loss.excursion_height", 0.15, "ratio", {}, {}},
                                {"loss.excursion_start_step", 250.0, "step", {}, {}},
                                {"loss.excursion_end_step", 253.0, "step", {}, {}},
                                {"loss.spike_count", spikes, "spikes", {}, {}},
                                {"loss.spike_max_height", spikes > 0 ? 0.4 : 0.0, "ratio", {}, {}}},
                               posterior(0.9, 0.05, 0.05));
  };
  const auto risen = details_of(12.0, 0.0);
  ASSERT_TRUE(risen.contains("observations")) << risen.dump();
  EXPECT_EQ(risen["observations"][0]["kind"], "loss_excursion");
  const std::string text = risen["observations"][0]["text"].get<std::string>();
  EXPECT_NE(text.find("15% above its level at iteration 250"), std::string::npos) << text;
  EXPECT_NE(text.find("12.0 sigmas"), std::string::npos) << text;
  EXPECT_NE(text.find("back at iteration 253"), std::string::npos) << text;
  EXPECT_EQ(risen["observations"][0]["where"], "iterations 250-253");
  EXPECT_EQ(details_of(12.0, 1.0)["observations"][0]["kind"], "loss_spike");
  EXPECT_FALSE(details_of(2.0, 0.0).contains("observations"));
}

// Where the graph reads the repeating order as a permutation drawn once and reused (order_kind = reused),
// the same observations say what it means: random batches that come back, which train as well as fresh ones.
TEST(scenario_analyzers, ARepetitionOfRandomBatchesIsSaidToBeAReusedOrder) {
  auto texts_of = [](double reused) {
    Posterior p = posterior(0.9, 0.05, 0.05);
    p.marginals["order_kind"] = {{"fresh", 1.0 - reused}, {"reused", reused}};
    return training_details_of({{"loss.epoch_lag_residual_autocorr", 0.9, "ratio", {}, {}},
                                {"data.epoch_repeat_zscore", 7.0, "sd", {}, {}}},
                               p)
        .at("observations")
        .at(0)
        .at("text")
        .get<std::string>();
  };
  const std::string reused = texts_of(0.9);
  EXPECT_NE(reused.find("trains as well as a fresh shuffle"), std::string::npos) << reused;
  EXPECT_NE(reused.find("0.90, 7.0 sd"), std::string::npos) << reused;
  const std::string stored = texts_of(0.2);
  EXPECT_EQ(stored.find("trains as well"), std::string::npos) << stored;
  EXPECT_NE(stored.find("the data loader does not reshuffle"), std::string::npos) << stored;
}

// A rate far above the optimizer's customary one is said beside any verdict, naming the optimizer.
TEST(scenario_analyzers, TrainingDetailsSayTheRateIsFarAboveTheCustomaryOne) {
  auto details_of = [](double over, std::vector<EvidenceRef> source) {
    source.insert(source.begin(), {"step", "lr", kNoTimestamp, kNoTimestamp, 9, 9});
    return training_details_of({{"lr.peak", over * 1e-3, "lr", {}, {}},
                                {"lr.customary", 1e-3, "lr", {}, {}},
                                {"lr.peak_over_customary", over, "ratio", source, {}}},
                               posterior(0.9, 0.05, 0.05));
  };
  const auto traced = details_of(900.0, {{"operator", "Optimizer.step#Adam.step", 1, 2, 4, 4}});
  ASSERT_TRUE(traced.contains("observations")) << traced.dump();
  EXPECT_EQ(traced["observations"][0]["kind"], "high_learning_rate");
  EXPECT_EQ(traced["observations"][0]["text"],
            "the learning rate peaked at 0.9, 900 times the rate Adam is customarily run at");
  EXPECT_EQ(traced["observations"][0]["where"], "iteration 9");
  const auto logged = details_of(25.0, {{"line", "optimizer adamw", kNoTimestamp, kNoTimestamp, 160, 160}});
  EXPECT_NE(logged["observations"][0]["text"].get<std::string>().find("25 times the rate adamw"),
            std::string::npos);
  EXPECT_FALSE(details_of(3.0, {{"config", "optimizer sgd", kNoTimestamp, kNoTimestamp, -1, -1}})
                   .contains("observations"));
}

/// A symptom of the root cause as the posterior carries it: its states, the feature it reads and where each
/// state above the first starts.
GraphVariable symptom(std::string name, std::vector<std::string> states, std::string feature,
                      std::vector<double> thresholds) {
  return {.name = std::move(name),
          .states = states,
          .parents = {"root_cause"},
          .feature = std::move(feature),
          .thresholds = std::move(thresholds),
          .bins = states};
}

// The kinds of the observations the training analyzer states for these run features, under the posterior
// of the fixtures carrying `graph` as its variables.
std::vector<std::string> observation_kinds(std::vector<Feature> run_features,
                                           std::vector<GraphVariable> graph) {
  Posterior p = posterior(0.9, 0.05, 0.05);
  p.variables = std::move(graph);
  std::vector<std::string> kinds;
  const json details = training_details_of(std::move(run_features), p);
  for (const json& o : details.value("observations", json::array())) kinds.push_back(o.at("kind"));
  return kinds;
}

// The observation restates the graph's epoch_repeat=sharp and epoch_periodicity=periodic: with a graph
// that reads them from higher values, the same figures are no longer said to repeat.
TEST(scenario_analyzers, TheEpochRepeatObservationFollowsTheGraphsThresholds) {
  auto kinds_of = [](double autocorr, double zscore, std::vector<GraphVariable> graph) {
    return observation_kinds({{"loss.epoch_lag_residual_autocorr", autocorr, "ratio", {}, {}},
                              {"data.epoch_repeat_zscore", zscore, "sd", {}, {}}},
                             std::move(graph));
  };
  using Kinds = std::vector<std::string>;
  const std::vector<GraphVariable> strict = {
      symptom("epoch_periodicity", {"none", "weak", "periodic"}, "loss.epoch_lag_residual_autocorr",
              {0.3, 0.7}),
      symptom("epoch_repeat", {"none", "sharp"}, "data.epoch_repeat_zscore", {6.0})};
  EXPECT_TRUE(kinds_of(0.62, 4.1, strict).empty());
  EXPECT_EQ(kinds_of(0.75, 1.0, strict), Kinds{"epoch_repeat"});
  EXPECT_EQ(kinds_of(0.1, 6.5, strict), Kinds{"epoch_repeat"});
  // A graph without those variables (or without their thresholds): the shipped graph's 0.45 and 4 sd.
  EXPECT_EQ(kinds_of(0.62, 4.1, {}), Kinds{"epoch_repeat"});
  std::vector<GraphVariable> bare = strict;
  for (auto& v : bare) {
    v.thresholds.clear();
    v.bins.clear();
  }
  EXPECT_EQ(kinds_of(0.62, 4.1, bare), Kinds{"epoch_repeat"});
}

// An effect of the position in the epoch is said from the graph's epoch_position=strong on, and not beside
// the epoch repeat, which says more.
TEST(scenario_analyzers, ThePositionInTheEpochIsSaidWhereTheRepeatIsNot) {
  auto observations_of = [](double position_z, double autocorr, std::vector<GraphVariable> graph) {
    return observation_kinds({{"data.epoch_position_zscore", position_z, "sd", {}, {}},
                              {"loss.epoch_lag_residual_autocorr", autocorr, "ratio", {}, {}}},
                             std::move(graph));
  };
  using Kinds = std::vector<std::string>;
  EXPECT_EQ(observations_of(10.3, 0.2, {}), Kinds{"epoch_position"});
  EXPECT_EQ(observations_of(5.0, 0.2, {}), Kinds{});
  EXPECT_EQ(observations_of(10.3, 0.8, {}), Kinds{"epoch_repeat"});
  const std::vector<GraphVariable> strict = {
      symptom("epoch_position", {"none", "weak", "strong"}, "data.epoch_position_zscore", {6.0, 12.0})};
  EXPECT_EQ(observations_of(10.3, 0.2, strict), Kinds{});
  EXPECT_EQ(observations_of(12.5, 0.2, strict), Kinds{"epoch_position"});
}

// A cycle in the batches' class mix is said from the graph's batch_mix_cycle=cycling on, with its period,
// and not beside an epoch observation, which says more.
TEST(scenario_analyzers, ACycleInTheClassMixIsSaidWhereNoEpochObservationIs) {
  auto observations_of = [](double cycle_z, double position_z, std::vector<GraphVariable> graph) {
    return observation_kinds({{"grad.output_bias_cycle_zscore", cycle_z, "sd", {}, {}},
                              {"grad.output_bias_cycle_period", 5.8, "steps", {}, {}},
                              {"data.epoch_position_zscore", position_z, "sd", {}, {}}},
                             std::move(graph));
  };
  using Kinds = std::vector<std::string>;
  EXPECT_EQ(observations_of(5.2, 6.0, {}), Kinds{"batch_mix_cycle"});
  EXPECT_EQ(observations_of(3.0, 6.0, {}), Kinds{});
  EXPECT_EQ(observations_of(5.2, 10.0, {}), Kinds{"epoch_position"});
  const std::vector<GraphVariable> strict = {
      symptom("batch_mix_cycle", {"none", "cycling"}, "grad.output_bias_cycle_zscore", {6.0})};
  EXPECT_EQ(observations_of(5.2, 6.0, strict), Kinds{});
  EXPECT_EQ(observations_of(6.5, 6.0, strict), Kinds{"batch_mix_cycle"});
}

// A step up of the loss at the epoch start is said from the graph's epoch_start_jump=jump on, and only where
// neither the repeat nor the position effect (which say more) is.
TEST(scenario_analyzers, TheJumpAtTheEpochStartIsSaidWhereNothingMoreIs) {
  auto observations_of = [](double jump_z, double position_z, double autocorr,
                            std::vector<GraphVariable> graph) {
    return observation_kinds({{"loss.epoch_start_jump_zscore", jump_z, "sd", {}, {}},
                              {"data.epoch_position_zscore", position_z, "sd", {}, {}},
                              {"loss.epoch_lag_residual_autocorr", autocorr, "ratio", {}, {}}},
                             std::move(graph));
  };
  using Kinds = std::vector<std::string>;
  EXPECT_EQ(observations_of(6.0, 1.0, 0.1, {}), Kinds{"epoch_start_jump"});
  EXPECT_EQ(observations_of(3.0, 1.0, 0.1, {}), Kinds{});
  EXPECT_EQ(observations_of(6.0, 10.0, 0.1, {}), Kinds{"epoch_position"});
  EXPECT_EQ(observations_of(6.0, 1.0, 0.8, {}), Kinds{"epoch_repeat"});
  const std::vector<GraphVariable> strict = {
      symptom("epoch_start_jump", {"none", "jump"}, "loss.epoch_start_jump_zscore", {7.0})};
  EXPECT_EQ(observations_of(6.0, 1.0, 0.1, strict), Kinds{});
  EXPECT_EQ(observations_of(7.5, 1.0, 0.1, strict), Kinds{"epoch_start_jump"});
}

TEST(scenario_analyzers, NeighbouringBatchesAlikeAreSaidWhereNoEpochObservationIs) {
  auto kinds_of = [](double lag1, double jump_z) {
    return observation_kinds({{"loss.residual_lag1_autocorr", lag1, "ratio", {}, {}},
                              {"grad_norm.residual_lag1_autocorr", 0.3, "ratio", {}, {}},
                              {"loss.epoch_start_jump_zscore", jump_z, "sd", {}, {}}},
                             {});
  };
  using Kinds = std::vector<std::string>;
  EXPECT_EQ(kinds_of(0.45, 1.0), Kinds{"neighbouring_batches"});  // shards reshuffled every epoch
  EXPECT_EQ(kinds_of(0.05, 1.0), Kinds{});                        // batches drawn afresh
  EXPECT_EQ(kinds_of(0.45, 6.0), Kinds{"epoch_start_jump"});      // the epoch observation says the order
}

TEST(scenario_analyzers, FrequentClippingIsSaidWhateverTheVerdict) {
  auto kinds_of = [](double fraction, double log10_cut, double log10_early) {
    return observation_kinds({{"grad_norm.clip_fraction", fraction, "ratio", {}, {}},
                              {"grad_norm.log10_clipped_over_clip", log10_cut, "log10(ratio)", {}, {}},
                              {"grad_norm.log10_early_over_clip", log10_early, "log10(ratio)", {}, {}}},
                             {});
  };
  using Kinds = std::vector<std::string>;
  EXPECT_EQ(kinds_of(0.34, 0.32, 0.1), Kinds{"frequent_clipping"});   // updates cut 2.1x
  EXPECT_EQ(kinds_of(0.34, 0.13, 0.23), Kinds{"frequent_clipping"});  // the first steps 1.7x above it
  EXPECT_TRUE(kinds_of(0.05, 0.32, 0.23).empty());  // rare outliers caught: what clipping is for
  EXPECT_TRUE(kinds_of(0.4, 0.04, 0.02).empty());   // many steps trimmed by a few percent
}

TEST(scenario_analyzers, ARepeatedBatchIsSaidFromTheGraphsThreshold) {
  auto kinds_of = [](double share) {
    return observation_kinds({{"data.repeated_batch_share", share, "ratio", {}, {}}}, {});
  };
  EXPECT_EQ(kinds_of(1.0), std::vector<std::string>{"same_batch"});
  EXPECT_TRUE(kinds_of(0.3).empty());
}

TEST(scenario_analyzers, OnlyUnmeasuredEvidenceIsUndeterminedNotHealthy) {
  // The engine answered with every variable observed only in its absent state (its feature never came):
  // the ranking is the prior, and the diagnosis says so instead of calling the run healthy.
  Posterior p = posterior_with_graph(0.1, 0.8, 0.1);
  p.variables.push_back({.name = "throughput",
                         .states = {"steady", "dropped", "unmeasured"},
                         .parents = {"root_cause"},
                         .feature = "step_time.slowdown"});
  Evidence unmeasured;
  unmeasured.hard["throughput"] = "unmeasured";
  FeatureSet other;
  other.features.push_back({"grad_norm.median", 3.2, "", {}, {}});  // read by no variable
  auto diagnose = [&](const FeatureSet& features, const Evidence& evidence) {
    Harness h(training_analyzer_factory(), {});
    h.run_processor({{kFeatures, Envelope::make(CorrelationKey{}, features)},
                     {kEvidence, Envelope::make(CorrelationKey{}, evidence)},
                     {kPosterior, Envelope::make(CorrelationKey{}, p)}});
    return h.outputs_of<Diagnosis>(0).at(0);
  };
  const Diagnosis d = diagnose(other, unmeasured);
  EXPECT_FALSE(d.healthy);
  EXPECT_EQ(d.root_causes.at(0).id, "healthy");
  EXPECT_NE(d.details["undetermined"].get<std::string>().find("none of the signals the training graph reads"),
            std::string::npos);
  // The same with the variable read from a feature the run has: a diagnosis.
  FeatureSet with = other;
  with.features.push_back({"step_time.slowdown", 1.0, "ratio", {}, {}});
  Evidence steady;
  steady.hard["throughput"] = "steady";
  const Diagnosis m = diagnose(with, steady);
  EXPECT_TRUE(m.healthy);
  EXPECT_FALSE(m.details.contains("undetermined"));
}

TEST(scenario_analyzers, NoPosteriorNoDiagnosis) {
  Harness h(distributed_analyzer_factory(), {});
  h.run_processor({{kFeatures, Envelope::make(CorrelationKey{}, features())}});
  EXPECT_TRUE(h.outputs_of<Diagnosis>(0).empty());
}

TEST(scenario_analyzers, DistributedDetailsNameTheLateRank) {
  FeatureSet fs;
  Feature late{"rank.late_rank", 2, "rank", {}, {}};
  EvidenceRef r;
  r.kind = "rank";
  r.id = "rank2";
  late.evidence.push_back(r);
  fs.features.push_back(late);
  fs.features.push_back({"rank.collective_wait_skew", 0.4, "s", {}, {}});
  fs.features.push_back({"rank.step_time", 1.5, "s", {}, {{"rank", "2"}}});
  fs.features.push_back({"rank.step_time", 1.1, "s", {}, {{"rank", "0"}}});
  Posterior p;
  p.marginals["root_cause"] = {{"healthy", 0.1}, {"straggler_rank", 0.9}};
  Harness h(distributed_analyzer_factory(), {});
  h.run_processor(
      {{kFeatures, Envelope::make(CorrelationKey{}, fs)}, {kPosterior, Envelope::make(CorrelationKey{}, p)}});
  const auto d = h.outputs_of<Diagnosis>(0).at(0);
  EXPECT_EQ(d.root_causes[0].id, "straggler_rank");
  EXPECT_EQ(d.details["who_waited_for_whom"]["late_rank"], 2);
  EXPECT_EQ(d.details["who_waited_for_whom"]["evidence"][0]["id"], "rank2");
  EXPECT_DOUBLE_EQ(d.details["ranks"]["2"]["rank.step_time"].get<double>(), 1.5);
}

TEST(scenario_analyzers, WithoutGraphVariablesTheExplanationNamesStatesOnly) {
  // A posterior that says nothing of its graph (a BIF graph has no descriptions either): the cause, its
  // path and the provenance stand; no description and no feature value is made up.
  Harness h(training_analyzer_factory(), {});
  h.run_processor({{kFeatures, Envelope::make(CorrelationKey{}, features())},
                   {kEvidence, Envelope::make(CorrelationKey{}, evidence())},
                   {kPosterior, Envelope::make(CorrelationKey{}, posterior(0.85, 0.1, 0.05))}});
  const auto d = h.outputs_of<Diagnosis>(0).at(0);
  EXPECT_EQ(d.root_causes[0].id, "lr_too_high");
  EXPECT_NE(d.root_causes[0].explanation.find("loss_instability=high"), std::string::npos);
  EXPECT_EQ(d.root_causes[0].explanation.find("swings far"), std::string::npos);
  EXPECT_EQ(d.root_causes[0].explanation.find("loss.oscillation_amplitude"), std::string::npos);
  ASSERT_EQ(d.root_causes[0].evidence.size(), 1u);  // the variable's provenance only
  EXPECT_EQ(d.root_causes[0].evidence[0].kind, "series");
}

TEST(scenario_analyzers, TheGraphIsNotAnOptionOfTheAnalyzer) {
  // The graph is named once in a pipeline (on discretize); what the analyzer needs comes in posterior/1.
  for (const auto& o : training_analyzer_factory().manifest().options) EXPECT_NE(o.name, "graph");
}

}  // namespace
}  // namespace cann_debug::plugins

namespace cann_debug::plugins {
namespace {

TEST(scenario_analyzers, EmptyEvidenceIsNoDiagnosisNotHealthy) {
  Harness h(training_analyzer_factory(), {});
  h.run_processor({{kEvidence, Envelope::make(CorrelationKey{}, Evidence{})},
                   {kPosterior, Envelope::make(CorrelationKey{}, posterior(0.1, 0.8, 0.1))}});
  const auto d = h.outputs_of<Diagnosis>(0).at(0);
  EXPECT_FALSE(d.healthy);
  EXPECT_TRUE(d.root_causes.empty());
  EXPECT_NE(d.details["error"].get<std::string>().find("no evidence"), std::string::npos);
}

// A `root` the posterior has no variable for is a diagnosis with an error, not "healthy with no cause".
TEST(scenario_analyzers, ARootThePosteriorLacksIsAnErrorNotHealthy) {
  Harness h(training_analyzer_factory(), {{"root", "cause"}});
  h.run_processor({{kEvidence, Envelope::make(CorrelationKey{}, evidence())},
                   {kPosterior, Envelope::make(CorrelationKey{}, posterior(0.7, 0.2, 0.1))}});
  const auto d = h.outputs_of<Diagnosis>(0).at(0);
  EXPECT_FALSE(d.healthy);
  EXPECT_TRUE(d.root_causes.empty());
  EXPECT_EQ(d.details["error"].get<std::string>(),
            "the posterior has no variable 'cause' (the analyzer's `root` option); it has: loss_instability, "
            "root_cause");
}

}  // namespace
}  // namespace cann_debug::plugins
