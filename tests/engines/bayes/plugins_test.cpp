// The bayes package's components through the SDK test harness: evidence in -> posterior out,
// features -> evidence, the one-query reader, and their option checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>

#include <fmt/format.h>

#include "bayes_exact.hpp"
#include "bayes_sampling.hpp"
#include "bayes_test_support.hpp"
#include "cann_debug/causal_graph/graph_loader.hpp"
#include "cann_debug/causal_graph/json_graph.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "cpt_learn.hpp"
#include "discretize.hpp"
#include "evidence_source.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using testing::Harness;
using ::testing::HasSubstr;
namespace bt = bayes::test;

Envelope evidence(std::map<std::string, std::string> hard,
                  std::map<std::string, std::map<std::string, double>> soft = {}) {
  Evidence e;
  e.hard = std::move(hard);
  e.soft = std::move(soft);
  CorrelationKey key;
  key.step_id = 42;
  return Envelope::make(key, std::move(e));
}

std::string mini() {
  return bt::data_file("mini_training.json");
}

TEST(bayes_plugins, ManifestsAreSound) {
  for (const ComponentFactory* f : {&bayes_exact_factory(), &bayes_sampling_factory(), &discretize_factory(),
                                    &evidence_source_factory()}) {
    EXPECT_THAT(check_manifest(f->manifest()), ::testing::IsEmpty()) << f->manifest().type;
  }
  const Manifest& m = bayes_exact_factory().manifest();
  EXPECT_EQ(m.kind, ComponentKind::kEngine);
  EXPECT_EQ(m.inputs.at(0).accepts, std::vector<std::string>{"evidence/1"});
  EXPECT_EQ(m.outputs.at(0).produces, "posterior/1");
  EXPECT_EQ(m.outputs.at(1).produces, "json/1");
  EXPECT_EQ(bayes_sampling_factory().manifest().kind, ComponentKind::kEngine);
  EXPECT_EQ(discretize_factory().manifest().kind, ComponentKind::kExtractor);
  EXPECT_EQ(discretize_factory().manifest().inputs.at(0).accepts, std::vector<std::string>{"feature.set/1"});
  EXPECT_EQ(evidence_source_factory().manifest().kind, ComponentKind::kReader);
}

TEST(bayes_plugins, ExactEnginePosteriorPerEvidence) {
  Harness h(bayes_exact_factory(), {{"graph", mini()}, {"top_k", 3}});
  h.run_processor({{0, evidence({{"loss_spike", "yes"}, {"grad_clip_hits", "high"}})}, {0, evidence({})}});
  const auto posteriors = h.outputs_of<Posterior>(0);
  ASSERT_EQ(posteriors.size(), 2u);
  const Posterior& p = posteriors[0];
  EXPECT_EQ(p.graph, "mini_training");
  EXPECT_EQ(p.marginals.size(), 6u);
  EXPECT_NEAR(p.marginals.at("lr_too_high").at("yes"), 0.2 * 0.5089 / 0.16002, 1e-14);
  ASSERT_EQ(p.top_causes.size(), 2u);
  EXPECT_EQ(p.top_causes[0].id, "lr_too_high=yes");
  EXPECT_EQ(p.top_causes[0].path,
            (std::vector<std::string>{"lr_too_high=yes", "grad_explosion=yes", "grad_clip_hits=high"}));
  EXPECT_EQ(p.top_causes[1].id, "bad_data=yes");
  ASSERT_EQ(p.evidence_ranking.size(), 2u);
  EXPECT_EQ(p.evidence_ranking[0].first, "loss_spike");
  EXPECT_GT(p.evidence_ranking[0].second, p.evidence_ranking[1].second);
  // The key travels with the answer; the stats message carries P(e).
  EXPECT_EQ(h.out.emitted.at(0).second.key().step_id, 42);
  const auto stats = h.outputs_of<JsonMessage>(1);
  ASSERT_EQ(stats.size(), 2u);
  EXPECT_NEAR(stats[0].value.at("p_evidence").get<double>(), 0.16002, 1e-14);
  // The posterior, per cause a clamped run and one at its default state, one per left-out observation.
  EXPECT_EQ(stats[0].value.at("inferences").get<int>(), 1 + 2 * 2 + 2);
  EXPECT_EQ(stats[0].value.at("junction_tree").at("max_clique_entries").get<double>(), 8.0);
  // The prior query: no evidence, so no ranking and one-element paths.
  EXPECT_NEAR(posteriors[1].marginals.at("grad_explosion").at("yes"), 0.24, 1e-15);
  EXPECT_TRUE(posteriors[1].evidence_ranking.empty());
  EXPECT_EQ(posteriors[1].top_causes.at(0).path, std::vector<std::string>{"lr_too_high=yes"});
}

TEST(bayes_plugins, ExactEngineOnABifGraph) {
  if (!bt::have_bn()) GTEST_SKIP() << "no shared BIF corpus";
  Harness h(bayes_exact_factory(), {{"graph", bt::bif("asia")}, {"roots", {"smoke", "asia"}}, {"top_k", 1}});
  h.run_processor({{0, evidence({{"asia", "yes"}, {"dysp", "yes"}})}});
  const Posterior p = h.outputs_of<Posterior>(0).at(0);
  // gRain's chest-clinic numbers: P(lung = yes | asia = yes, dysp = yes) = 0.09952515.
  EXPECT_NEAR(p.marginals.at("lung").at("yes"), 0.09952515, 5e-9);
  ASSERT_EQ(p.top_causes.size(), 1u);
  EXPECT_EQ(p.top_causes[0].id, "smoke=yes");  // asia is observed, so only smoke is a candidate
  EXPECT_NEAR(h.outputs_of<JsonMessage>(1).at(0).value.at("p_evidence").get<double>(), 0.004501375, 5e-10);
}

TEST(bayes_plugins, ExactEngineErrors) {
  // Plan-time: the file and its extension.
  try {
    Harness h(bayes_exact_factory(), {{"graph", "/nonexistent/g.json"}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "graph: no such file '/nonexistent/g.json'");
  }
  EXPECT_THROW(Harness(bayes_exact_factory(), {{"graph", mini() + ".txt"}}), std::invalid_argument);
  EXPECT_THROW(Harness(discretize_factory(), json::object()), std::invalid_argument);  // graph is required
  // Start: unknown root, clique limit.
  {
    Harness h(bayes_exact_factory(), {{"graph", mini()}, {"roots", {"lr_to_high"}}});
    try {
      h.component().start();
      FAIL();
    } catch (const std::runtime_error& e) {
      EXPECT_STREQ(e.what(),
                   "roots: graph 'mini_training' has no variable 'lr_to_high' (did you mean 'lr_too_high'?)");
    }
  }
  {
    Harness h(bayes_exact_factory(), {{"graph", mini()}, {"max_clique_entries", 4}});
    try {
      h.component().start();
      FAIL();
    } catch (const std::runtime_error& e) {
      EXPECT_THAT(e.what(), HasSubstr("graph 'mini_training' is too large for exact inference"));
    }
  }
  // Process: evidence on an unknown variable.
  Harness h(bayes_exact_factory(), {{"graph", mini()}});
  h.component().start();
  try {
    h.component().process(evidence({{"loss", "yes"}}), 0, h.out);
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("evidence names unknown variable 'loss' of graph 'mini_training'"));
  }
}

TEST(bayes_plugins, SamplingEngineReportsItsErrorAgainstExact) {
  Harness h(bayes_sampling_factory(), {{"graph", mini()}, {"samples", 20000}, {"seed", 3}});
  h.run_processor({{0, evidence({{"loss_spike", "yes"}})}});
  const Posterior p = h.outputs_of<Posterior>(0).at(0);
  const json stats = h.outputs_of<JsonMessage>(1).at(0).value;
  EXPECT_EQ(stats.at("engine"), "likelihood_weighting");
  EXPECT_EQ(stats.at("samples"), 20000);
  const double error = stats.at("max_abs_error_vs_exact").get<double>();
  EXPECT_GT(error, 0.0);
  EXPECT_LT(error, 0.02);
  EXPECT_NEAR(p.marginals.at("lr_too_high").at("yes"), 0.2 * 0.745 / (0.2 * 0.745 + 0.8 * 0.185),
              error + 1e-12);
  EXPECT_EQ(p.top_causes.at(0).id, "lr_too_high=yes");
  // Without a feasible exact engine the figure is null, with the reason.
  Harness small(bayes_sampling_factory(), {{"graph", mini()}, {"samples", 1000}, {"max_clique_entries", 4}});
  small.run_processor({{0, evidence({{"loss_spike", "yes"}})}});
  const json s = small.outputs_of<JsonMessage>(1).at(0).value;
  EXPECT_TRUE(s.at("max_abs_error_vs_exact").is_null());
  EXPECT_THAT(s.at("exact_unavailable").get<std::string>(), HasSubstr("too large for exact inference"));
}

Envelope features(std::vector<Feature> list) {
  return Envelope::make(CorrelationKey{}, FeatureSet{"run", std::move(list)});
}

TEST(bayes_plugins, DiscretizeFeaturesToEvidence) {
  Harness h(discretize_factory(), {{"graph", mini()}});
  EvidenceRef window{.kind = "window", .id = "loss", .first_step = 10, .last_step = 20};
  EvidenceRef rank0{.kind = "rank", .id = "rank0"};
  h.run_processor(
      {{0, features({{"loss.robust_z", 3.5, "", {window}, {}},
                     {"grad_norm.clip_ratio", 0.9, "ratio", {rank0}, {{"rank", "1"}}},  // wrong rank
                     {"unrelated", 1.0, "", {}, {}}})},
       {0, features({{"grad_norm.clip_ratio", 0.4, "ratio", {rank0}, {{"rank", "0"}}}})}});
  const auto out = h.outputs_of<Evidence>(0);
  ASSERT_EQ(out.size(), 1u);  // on_flush: one message at the end
  const Evidence& e = out[0];
  EXPECT_EQ(e.hard, (std::map<std::string, std::string>{{"grad_clip_hits", "high"}}));
  ASSERT_EQ(e.soft.count("loss_spike"), 1u);
  EXPECT_NEAR(e.soft.at("loss_spike").at("no"), 1.0 / (1.0 + std::exp(1.0)), 1e-15);
  EXPECT_NEAR(e.soft.at("loss_spike").at("yes"), 1.0 - 1.0 / (1.0 + std::exp(1.0)), 1e-15);
  ASSERT_EQ(e.provenance.at("loss_spike").size(), 1u);
  EXPECT_EQ(e.provenance.at("loss_spike")[0].first_step, 10);
  EXPECT_EQ(e.provenance.at("grad_clip_hits")[0].id, "rank0");
}

TEST(bayes_plugins, TheGraphIsNamedOnceOnDiscretize) {
  // discretize names its graph in the evidence; an engine without `graph` answers on it, and its posterior
  // carries the graph's variables (no tables) for the components downstream.
  Harness d(discretize_factory(), {{"graph", mini()}});
  d.run_processor({{0, features({{"loss.robust_z", 3.5, "", {}, {}}})}});
  const Evidence e = d.outputs_of<Evidence>(0).at(0);
  EXPECT_EQ(e.graph, mini());
  Harness engine(bayes_exact_factory(), json::object());
  engine.run_processor({{0, Envelope::make(CorrelationKey{}, e)}});
  const Posterior p = engine.outputs_of<Posterior>(0).at(0);
  EXPECT_EQ(p.graph, "mini_training");
  ASSERT_EQ(p.variables.size(), 6u);
  const auto spike = std::find_if(p.variables.begin(), p.variables.end(),
                                  [](const GraphVariable& v) { return v.name == "loss_spike"; });
  ASSERT_NE(spike, p.variables.end());
  EXPECT_EQ(spike->feature, "loss.robust_z");
  EXPECT_EQ(spike->states, (std::vector<std::string>{"no", "yes"}));
  // Its discretization, so that what is said of a state downstream uses the graph's own thresholds.
  EXPECT_EQ(spike->thresholds, (std::vector<double>{3.0}));
  EXPECT_EQ(spike->bins, (std::vector<std::string>{"no", "yes"}));
  EXPECT_FALSE(spike->parents.empty());
  // posterior/1 carries them through JSON.
  const Posterior round_trip = nlohmann::json(p).get<Posterior>();
  const auto again = std::find_if(round_trip.variables.begin(), round_trip.variables.end(),
                                  [](const GraphVariable& v) { return v.name == "loss_spike"; });
  ASSERT_NE(again, round_trip.variables.end());
  EXPECT_EQ(again->thresholds, spike->thresholds);
  EXPECT_EQ(again->bins, spike->bins);
  // The same answer as an engine told the graph itself.
  Harness told(bayes_exact_factory(), {{"graph", mini()}});
  told.run_processor({{0, Envelope::make(CorrelationKey{}, e)}});
  EXPECT_EQ(told.outputs_of<Posterior>(0).at(0).marginals, p.marginals);
}

TEST(bayes_plugins, AnEngineWithoutAGraphNeedsEvidenceNamingOne) {
  Harness none(bayes_exact_factory(), json::object());
  EXPECT_THAT(
      [&] {
        none.run_processor({{0, evidence({{"loss_spike", "yes"}})}});
      },
      ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("no causal graph")));
  // A later message naming another graph file is refused rather than answered on the first graph.
  Evidence first;
  first.graph = mini();
  Evidence other = first;
  other.graph = bt::data_file("no_discretization.json");
  Harness two(bayes_exact_factory(), json::object());
  EXPECT_THAT(
      [&] {
        two.run_processor(
            {{0, Envelope::make(CorrelationKey{}, first)}, {0, Envelope::make(CorrelationKey{}, other)}});
      },
      ::testing::ThrowsMessage<std::runtime_error>(HasSubstr("no_discretization.json")));
  // An engine told its graph answers whatever graph the evidence names.
  Harness told(bayes_exact_factory(), {{"graph", mini()}});
  told.run_processor({{0, Envelope::make(CorrelationKey{}, other)}});
  EXPECT_EQ(told.outputs_of<Posterior>(0).size(), 1u);
}

TEST(bayes_plugins, AVariableWhoseFeatureNeverCameIsObservedInItsAbsentState) {
  // throughput_drop can only be seen through the timings: without them it is ruled out, not ranked on
  // its prior.
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "absent_state.json";
  std::ofstream(path) << R"({"variables": [
    {"name": "cause", "states": ["healthy", "throughput_drop"], "cpt": [0.9, 0.1]},
    {"name": "timing", "states": ["steady", "dropped", "unmeasured"], "parents": ["cause"],
     "cpt": [[0.85, 0.05, 0.1], [0.1, 0.899, 0.001]],
     "discretization": {"feature": "step_time.slowdown", "thresholds": [1.3], "states": ["steady", "dropped"],
                        "absent_state": "unmeasured"}}]})";
  Harness without(discretize_factory(), {{"graph", path.string()}});
  without.run_processor({{0, features({{"loss.first", 2.0, "", {}, {}}})}});
  ASSERT_EQ(without.outputs_of<Evidence>(0).size(), 1u);
  const Evidence none = without.outputs_of<Evidence>(0)[0];
  EXPECT_EQ(none.hard.at("timing"), "unmeasured");
  Harness with(discretize_factory(), {{"graph", path.string()}});
  with.run_processor({{0, features({{"step_time.slowdown", 1.6, "ratio", {}, {}}})}});
  const Evidence some = with.outputs_of<Evidence>(0).at(0);
  EXPECT_EQ(some.hard.at("timing"), "dropped");
  // The engine then all but rules the cause out.
  Harness engine(bayes_exact_factory(), {{"graph", path.string()}});
  engine.run_processor({{0, Envelope::make(CorrelationKey{}, none)}});
  const Posterior post = engine.outputs_of<Posterior>(0).at(0);
  EXPECT_LT(post.marginals.at("cause").at("throughput_drop"), 0.002);
  // The loader keeps absent_state through a round trip.
  const bayes::Network net = bayes::load_graph(path.string());
  const auto back = bayes::parse_json_graph(bayes::to_json_graph(net).dump(), "round-trip.json");
  EXPECT_EQ(back.variables[1].discretization->absent_state, 2);
}

TEST(bayes_plugins, AContextVariableIsEvidenceOnlyBesideASymptom) {
  // config_batch is how the run was set up ("_context": true): alone it would make the verdict, so without
  // any symptom observed it is left out; beside a symptom it weighs in. A variable only observed in its
  // absent state is no symptom.
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "context.json";
  std::ofstream(path) << R"({"variables": [
    {"name": "cause", "states": ["healthy", "batch_too_small"], "cpt": [0.7, 0.3]},
    {"name": "noise", "states": ["low", "high"], "parents": ["cause"], "cpt": [[0.9, 0.1], [0.4, 0.6]],
     "discretization": {"feature": "loss.noise", "thresholds": [0.1]}},
    {"name": "timing", "states": ["steady", "dropped", "unmeasured"], "parents": ["cause"],
     "cpt": [[0.45, 0.05, 0.5], [0.45, 0.05, 0.5]],
     "discretization": {"feature": "step_time.slowdown", "thresholds": [1.3], "states": ["steady", "dropped"],
                        "absent_state": "unmeasured"}},
    {"name": "config_batch", "states": ["tiny", "normal"], "parents": ["cause"], "learn": false,
     "_context": true, "cpt": [[0.03, 0.97], [0.6, 0.4]],
     "discretization": {"feature": "data.batch_size", "thresholds": [8]}}]})";
  Harness alone(discretize_factory(), {{"graph", path.string()}});
  alone.run_processor({{0, features({{"data.batch_size", 2.0, "samples", {}, {}}})}});
  const Evidence a = alone.outputs_of<Evidence>(0).at(0);
  EXPECT_EQ(a.hard, (std::map<std::string, std::string>{{"timing", "unmeasured"}}));
  EXPECT_TRUE(a.soft.empty());
  Harness beside(discretize_factory(), {{"graph", path.string()}});
  beside.run_processor(
      {{0, features({{"data.batch_size", 2.0, "samples", {}, {}}, {"loss.noise", 0.05, "ratio", {}, {}}})}});
  const Evidence b = beside.outputs_of<Evidence>(0).at(0);
  EXPECT_EQ(b.hard.at("config_batch"), "tiny");
  EXPECT_EQ(b.hard.at("noise"), "low");
}

TEST(bayes_plugins, DiscretizeEverySetAndNonFinite) {
  Harness h(discretize_factory(), {{"graph", mini()}, {"emit", "every_set"}});
  h.run_processor({{0, features({{"loss.robust_z", 0.0, "", {}, {}}})},
                   {0, features({{"loss.robust_z", std::numeric_limits<double>::quiet_NaN(), "", {}, {}}})}});
  const auto out = h.outputs_of<Evidence>(0);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_LT(out[0].soft.at("loss_spike").at("yes"), 0.01);
  EXPECT_EQ(out[1].hard.at("loss_spike"), "yes");  // NaN -> nonfinite_state; the latest reading wins
  EXPECT_EQ(out[1].soft.count("loss_spike"), 0u);
  // A graph without any discretization spec cannot produce evidence.
  Harness plain(discretize_factory(), {{"graph", bt::data_file("no_discretization.json")}});
  try {
    plain.component().start();
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("graph 'plain'"));
    EXPECT_THAT(e.what(), HasSubstr("has no variable with a 'discretization' spec"));
  }
  // Nothing received: nothing emitted.
  Harness idle(discretize_factory(), {{"graph", mini()}});
  idle.run_processor({});
  EXPECT_TRUE(idle.out.emitted.empty());
}

TEST(bayes_plugins, EvidenceSourceFeedsTheEngine) {
  Harness src(evidence_source_factory(), {{"hard", {{"loss_spike", "yes"}, {"level", 1}}},
                                          {"soft", {{"grad_clip_hits", {{"high", 0.8}, {"low", 0.2}}}}}});
  src.run_source(10);
  const auto out = src.outputs_of<Evidence>(0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].hard, (std::map<std::string, std::string>{{"level", "1"}, {"loss_spike", "yes"}}));
  EXPECT_EQ(out[0].soft.at("grad_clip_hits").at("high"), 0.8);
  // Bad option values are plan-time errors.
  try {
    Harness bad(evidence_source_factory(), {{"soft", {{"x", {{"a", -1}}}}}});
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_STREQ(e.what(), "soft: 'x.a': expected a likelihood >= 0, got -1");
  }
  EXPECT_THROW(Harness(evidence_source_factory(), {{"hard", {{"x", json::array()}}}}), std::invalid_argument);
  // The emitted message drives the engine (drop the made-up variable "level" first).
  Evidence e = out[0];
  e.hard.erase("level");
  Harness engine(bayes_exact_factory(), {{"graph", mini()}, {"explain", false}});
  engine.run_processor({{0, Envelope::make(CorrelationKey{}, e)}});
  const Posterior p = engine.outputs_of<Posterior>(0).at(0);
  EXPECT_EQ(p.marginals.at("loss_spike").at("yes"), 1.0);
  EXPECT_TRUE(p.evidence_ranking.empty());
  EXPECT_EQ(engine.outputs_of<JsonMessage>(1).at(0).value.at("inferences"), 1);
}

/// Runs cpt_learn on `graph_text` (written to a temporary file) over `cases`; returns the graph it writes.
json learn_graph(const std::string& name, const std::string& graph_text,
                 const std::vector<std::pair<std::size_t, Envelope>>& cases, json options = json::object()) {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / fmt::format("{}-{}", name, ::getpid());
  fs::create_directories(dir);
  std::ofstream(dir / "g.json") << graph_text;
  options["graph"] = (dir / "g.json").string();
  options["output"] = (dir / "learnt.json").string();
  Harness learn(cpt_learn_factory(), options);
  learn.run_processor(cases);
  std::ifstream in(dir / "learnt.json");
  const json out = json::parse(in);
  fs::remove_all(dir);
  return out;
}

TEST(bayes_plugins, CptLearnKeepsTablesMarkedLearnFalse) {
  const std::string graph = R"({"name": "g", "variables": [
      {"name": "root_cause", "states": ["healthy", "fault"], "cpt": [0.5, 0.5]},
      {"name": "symptom", "states": ["low", "high"], "parents": ["root_cause"], "cpt": [[0.5, 0.5], [0.5, 0.5]]},
      {"name": "config_says", "states": ["no", "yes"], "parents": ["root_cause"], "learn": false,
       "cpt": [[0.9, 0.1], [0.3, 0.7]]}]})";
  std::vector<std::pair<std::size_t, Envelope>> cases;
  for (int i = 0; i < 4; ++i)
    cases.push_back({0, evidence({{"root_cause", "fault"}, {"symptom", "high"}, {"config_says", "yes"}})});
  cases.push_back({0, evidence({{"root_cause", "healthy"}, {"symptom", "low"}, {"config_says", "yes"}})});
  const json out = learn_graph("cpt-learn-keep", graph, cases, {{"prior_strength", 1.0}});
  // symptom | fault learnt: (0.5 + 0, 0.5 + 4) / 5; config_says kept as written despite the counts.
  EXPECT_NEAR(out["variables"][1]["cpt"][1][1].get<double>(), 4.5 / 5.0, 1e-9);
  EXPECT_EQ(out["variables"][2]["cpt"], (json{{0.9, 0.1}, {0.3, 0.7}}));
  EXPECT_EQ(out["variables"][2]["learn"], false);
}

// A hidden variable read off the label: cpt_learn gives each labelled case its kind, so the symptom learns
// the row of the kind the cases hold, keeps the hand-set row of the one they lack, and writes the mapping.
TEST(bayes_plugins, CptLearnReadsAHiddenKindOffTheLabel) {
  const std::string graph = R"({"name": "g", "variables": [
      {"name": "root_cause", "states": ["healthy", "fault"], "cpt": [0.5, 0.5]},
      {"name": "kind", "states": ["fresh", "repeating", "never"], "parents": ["root_cause"], "learn": false,
       "cpt": [[1, 0, 0], [0, 0.7, 0.3]],
       "from_label": {"variable": "root_cause", "states": {"fault": "repeating"}, "otherwise": "fresh"}},
      {"name": "symptom", "states": ["low", "high"], "parents": ["kind"],
       "cpt": [[0.5, 0.5], [0.5, 0.5], [0.9, 0.1]]}]})";
  std::vector<std::pair<std::size_t, Envelope>> cases;
  for (int i = 0; i < 4; ++i) cases.push_back({0, evidence({{"root_cause", "fault"}, {"symptom", "high"}})});
  cases.push_back({0, evidence({{"root_cause", "healthy"}, {"symptom", "low"}})});
  const json out = learn_graph("cpt-learn-kind", graph, cases, {{"prior_strength", 1.0}});
  const json& rows = out["variables"][2]["cpt"];
  EXPECT_NEAR(rows[0][0].get<double>(), 1.5 / 2.0, 1e-9);  // fresh: the healthy case, low
  EXPECT_NEAR(rows[1][1].get<double>(), 4.5 / 5.0, 1e-9);  // repeating: the four faults, high
  EXPECT_EQ(rows[2], (json{0.9, 0.1}));                    // never: no case, as written
  EXPECT_EQ(out["variables"][1]["from_label"]["states"], (json{{"fault", "repeating"}}));
  EXPECT_EQ(out["variables"][1]["cpt"], (json{{1, 0, 0}, {0, 0.7, 0.3}}));
}

TEST(bayes_plugins, CptLearnRefusesAKindReadOffAnotherVariableThanItsLabel) {
  const std::string graph = R"({"name": "g", "variables": [
      {"name": "root_cause", "states": ["healthy", "fault"], "cpt": [0.5, 0.5]},
      {"name": "kind", "states": ["a", "b"], "parents": ["root_cause"], "learn": false, "cpt": [[1, 0], [0, 1]],
       "from_label": {"variable": "root_cause", "states": {"fault": "b"}, "otherwise": "a"}}]})";
  try {
    learn_graph("cpt-learn-kind-label", graph, {{0, evidence({{"kind", "a"}})}}, {{"label", "kind"}});
    FAIL() << "learnt with a kind read off another variable";
  } catch (const std::exception& e) {
    EXPECT_THAT(std::string(e.what()),
                HasSubstr("'kind' is read off 'root_cause', but the label of this learning is 'kind'"));
  }
}

TEST(bayes_plugins, CptLearnCarriesTheVariablesExtensionKeys) {
  const std::string graph = R"({"name": "g", "variables": [
      {"name": "root_cause", "states": ["healthy", "fault"], "cpt": [0.5, 0.5]},
      {"name": "config_says", "states": ["no", "yes"], "parents": ["root_cause"], "learn": false,
       "_context": true, "_note": {"source": "hand-set"}, "cpt": [[0.9, 0.1], [0.3, 0.7]]}]})";
  const json out =
      learn_graph("cpt-learn-ext", graph, {{0, evidence({{"root_cause", "fault"}, {"config_says", "yes"}})}});
  EXPECT_EQ(out["variables"][1]["_context"], true);
  EXPECT_EQ(out["variables"][1]["_note"]["source"], "hand-set");
  EXPECT_FALSE(out["variables"][0].contains("_context"));
}

}  // namespace
}  // namespace cann_debug::plugins
