// The shipped knowledge base covers every root cause and renders with and without measurements; malformed
// knowledge-base files fail with the file, the JSON pointer and what was expected.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include "advice_builder.hpp"
#include "kb_json.hpp"
#include "knowledge_base.hpp"
#include "test_support.hpp"

namespace cann_debug::plugins::kb {
namespace {

using nlohmann::json;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

// The root-cause ids of the three scenarios (shared/cases/FORMAT.md, plus Ascend slow_link / small_packets /
// pipeline_bubble).
const std::vector<std::string> kRootCauses = {"lr_too_high",
                                              "grad_clip_too_low",
                                              "gradient_explosion",
                                              "vanishing_gradient",
                                              "unshuffled_data",
                                              "batch_too_small",
                                              "unfused_operators",
                                              "thread_oversubscription",
                                              "preprocessing_bottleneck",
                                              "no_batching",
                                              "cold_start",
                                              "straggler_rank",
                                              "small_bucket_size",
                                              "no_comm_overlap",
                                              "load_imbalance",
                                              "slow_link",
                                              "small_packets",
                                              "pipeline_bubble"};

const KnowledgeBase& shipped() {
  static const KnowledgeBase kb = load_knowledge_base(test::shipped_kb_dir());
  return kb;
}

bool has_placeholder(const json& j) {
  if (j.is_string()) return j.get<std::string>().find("{{") != std::string::npos;
  if (!j.is_structured()) return false;
  for (const auto& child : j) {
    if (has_placeholder(child)) return true;
  }
  return false;
}

Advice advise(const Diagnosis& d, const std::vector<FeatureSet>& features, const json* config) {
  std::vector<std::string> unanswered;
  cann_debug::kb::OutcomeStore history;
  const std::vector<Advice> advice =
      build_advice(shipped(), history, {&d, &features, config}, {0.05, 3}, unanswered);
  EXPECT_TRUE(unanswered.empty());
  EXPECT_EQ(advice.size(), 1u);
  return advice.empty() ? Advice{} : advice.front();
}

// Every feature a template reads, with a plausible positive value; every config key it reads.
std::vector<FeatureSet> all_features() {
  FeatureSet set;
  set.scope = "run";
  std::set<std::string> seen;
  auto add = [&](const ParameterSource& s) {
    if ((s.kind == ParameterSource::Kind::kFeature || s.kind == ParameterSource::Kind::kFeatureEvidence) &&
        seen.insert(s.name).second)
      set.features.push_back({s.name,
                              0.5,
                              "",
                              {{"link", "hccs0->1", kNoTimestamp, kNoTimestamp, -1, -1},
                               {"rank", "rank1", kNoTimestamp, kNoTimestamp, -1, -1},
                               {"stage", "1 (ranks 8-15)", kNoTimestamp, kNoTimestamp, -1, -1}},
                              {}});
  };
  for (const auto& [id, t] : shipped().templates)
    for (const auto& [name, p] : t.parameters)
      for (const auto& s : p.sources) {
        add(s);
        for (const auto& m : s.multiply_by) add(m);
        for (const auto& d : s.divide_by) add(d);
      }
  return {set};
}

json full_config() {
  return json::parse(R"json({"optimizer": {"lr": 0.1}, "lr": 0.1, "steps": 400, "clip_threshold": 0.01,
    "batch_size": 4, "batch_size_per_rank": 16, "global_batch_size": 64, "world_size": 4, "cpu_count": 8,
    "steps_per_epoch": 449, "model": {"init": "normal(0, 1)", "act": "sigmoid"}, "model_format": "eager",
    "num_threads": 32, "max_batch_size": 1, "param_bytes": 8388608, "bucket_cap_mb": 0.01,
    "wrapper": "none"})json");
}

TEST(KbAdvisorShippedKnowledgeBase, EveryRootCauseHasAPatternWithTwoToFourSuggestions) {
  for (const auto& id : kRootCauses) {
    auto it = shipped().patterns.find(id);
    ASSERT_NE(it, shipped().patterns.end()) << id;
    EXPECT_GE(it->second.suggestions.size(), 2u) << id;
    EXPECT_LE(it->second.suggestions.size(), 4u) << id;
  }
}

TEST(KbAdvisorShippedKnowledgeBase, CoversEveryRootCauseStateOfTheShippedGraphs) {
  const auto graphs = std::filesystem::path(CANN_DEBUG_SOURCE_DIR) / "pipelines" / "graphs";
  if (!std::filesystem::is_directory(graphs)) GTEST_SKIP() << "no pipelines/graphs";
  for (const auto& entry : std::filesystem::directory_iterator(graphs)) {
    if (entry.path().extension() != ".json") continue;
    const json graph = read_json_file(entry.path().string());
    for (const auto& variable : graph.value("variables", json::array())) {
      if (variable.value("name", "") != "root_cause") continue;
      for (const auto& state : variable.at("states")) {
        const std::string id = state.get<std::string>();
        if (id == "healthy") continue;
        EXPECT_TRUE(shipped().patterns.contains(id)) << entry.path() << ": " << id;
      }
    }
  }
}

TEST(KbAdvisorShippedKnowledgeBase, EveryPatternRendersWithoutFeaturesOrConfig) {
  for (const auto& id : kRootCauses) {
    const Advice a = advise(test::diagnosis("any", {{id, 0.9}}), {}, nullptr);
    EXPECT_EQ(a.for_root_cause, id);
    // Without features, every suggestion but those that need one (`when`).
    std::size_t unconditional = 0;
    for (const auto& s : shipped().patterns.at(id).suggestions) unconditional += s.when.empty() ? 1 : 0;
    ASSERT_EQ(a.suggestions.size(), unconditional) << id;
    for (const auto& s : a.suggestions) {
      EXPECT_THAT(s.id, HasSubstr(id + "/"));
      EXPECT_FALSE(s.title.empty());
      EXPECT_FALSE(has_placeholder(s.title) || has_placeholder(s.rationale) || has_placeholder(s.risk))
          << s.id;
      EXPECT_FALSE(has_placeholder(s.config_patch)) << s.id;
      EXPECT_TRUE(s.config_patch.is_object() && !s.config_patch.empty()) << s.id;
      ASSERT_TRUE(s.code.contains("pytorch")) << s.id;
      for (const auto& [fw, code] : s.code)
        EXPECT_EQ(code.find("{{"), std::string::npos) << s.id << " " << fw;
      EXPECT_EQ(s.improvement_source, "prior");
      EXPECT_GT(s.expected_improvement, 0.0);
      EXPECT_FALSE(s.target_metric.empty());
    }
  }
}

TEST(KbAdvisorShippedKnowledgeBase, EveryPatternRendersWithMeasurementsAndCitesMore) {
  const json config = full_config();
  const auto features = all_features();
  for (const auto& id : kRootCauses) {
    const Advice bare = advise(test::diagnosis("any", {{id, 0.9}}), {}, nullptr);
    const Advice full = advise(test::diagnosis("any", {{id, 0.9}}), features, &config);
    ASSERT_FALSE(full.suggestions.empty()) << id;
    for (const auto& s : full.suggestions) {
      EXPECT_FALSE(has_placeholder(s.rationale) || has_placeholder(s.config_patch)) << s.id;
      // Every template has at least one sentence that only renders with a measurement or config value.
      for (const auto& b : bare.suggestions) {
        if (b.id == s.id) {
          EXPECT_GT(s.rationale.size(), b.rationale.size()) << s.id;
        }
      }
    }
  }
}

TEST(KbAdvisorShippedKnowledgeBase, StragglerAdviceFollowsWhereTheRankLosesTime) {
  // A rank whose compute is 12% of a step longer than its stage's fastest (a device-timed step split)
  // gets the device checked; a host-side straggler, or a run without a step split, gets the host fixes.
  auto with_compute_gap = [](double gap) {
    FeatureSet set;
    set.scope = "run";
    set.features.push_back(
        {"rank.compute_gap", gap, "ratio", {{"rank", "rank3", kNoTimestamp, kNoTimestamp, -1, -1}}, {}});
    return std::vector<FeatureSet>{set};
  };
  auto templates = [](const Advice& a) {
    std::vector<std::string> out;
    for (const auto& s : a.suggestions) out.push_back(s.id);
    return out;
  };
  const auto d = test::diagnosis("distributed", {{"straggler_rank", 0.9}});
  EXPECT_EQ(templates(advise(d, with_compute_gap(0.12), nullptr)),
            std::vector<std::string>{"straggler_rank/check_slow_device"});
  const std::vector<std::string> host{"straggler_rank/speed_up_straggler_input",
                                      "straggler_rank/isolate_straggler_host"};
  EXPECT_EQ(templates(advise(d, with_compute_gap(0.01), nullptr)), host);
  EXPECT_EQ(templates(advise(d, {}, nullptr)), host);
  const Advice device = advise(d, with_compute_gap(0.12), nullptr);
  EXPECT_THAT(device.suggestions.at(0).rationale, HasSubstr("rank3 computes 12% of a step longer"));
}

TEST(KbAdvisorShippedKnowledgeBase, RateAdviceFollowsTheRateAgainstTheOptimizersCustomaryOne) {
  // Adam at 0.9 (900 times its customary 1e-3) is set back to the customary rate, not to a third of 0.9;
  // a rate within ten times of it is lowered by the usual step.
  auto rate = [](double peak, double customary) {
    return std::vector<FeatureSet>{test::run_features(
        {{"lr.peak", peak}, {"lr.customary", customary}, {"lr.peak_over_customary", peak / customary}})};
  };
  const auto d = test::diagnosis("training", {{"lr_too_high", 0.9}});
  const Advice gross = advise(d, rate(0.9, 1e-3), nullptr);
  ASSERT_FALSE(gross.suggestions.empty());
  EXPECT_EQ(gross.suggestions[0].id, "lr_too_high/use_customary_learning_rate");
  EXPECT_EQ(gross.suggestions[0].config_patch.at("lr"), 0.001);
  EXPECT_THAT(gross.suggestions[0].rationale,
              HasSubstr("900x the rate this optimizer is customarily run at"));
  for (const auto& s : gross.suggestions) EXPECT_NE(s.id, "lr_too_high/lower_learning_rate");
  const Advice ordinary = advise(d, rate(0.3, 0.1), nullptr);
  ASSERT_FALSE(ordinary.suggestions.empty());
  EXPECT_EQ(ordinary.suggestions[0].id, "lr_too_high/lower_learning_rate");
  EXPECT_EQ(ordinary.suggestions[0].config_patch.at("lr"), 0.09);
  for (const auto& s : ordinary.suggestions) EXPECT_NE(s.id, "lr_too_high/use_customary_learning_rate");
}

TEST(KbAdvisorShippedKnowledgeBase, ARepeatedBatchIsAdvisedANewBatchEveryStep) {
  // One batch trained on again and again: the fix is a new batch every step, not an argument about
  // class-sorted stretches of an epoch; without that symptom the usual reshuffle comes first.
  const auto d = test::diagnosis("training", {{"unshuffled_data", 0.6}});
  const Advice repeated = advise(
      d, {test::run_features({{"data.repeated_batch_share", 1.0}, {"data.batch_size", 96.0}})}, nullptr);
  ASSERT_FALSE(repeated.suggestions.empty());
  EXPECT_EQ(repeated.suggestions[0].id, "unshuffled_data/draw_new_batch_every_step");
  EXPECT_EQ(repeated.suggestions[0].config_patch.at("shuffle"), true);
  EXPECT_THAT(repeated.suggestions[0].rationale, HasSubstr("every step trains on the same 96 samples"));
  for (const auto& s : repeated.suggestions) EXPECT_NE(s.id, "unshuffled_data/enable_shuffling");
  const Advice periodic = advise(d, {test::run_features({{"loss.epoch_lag_autocorr", 0.7}})}, nullptr);
  ASSERT_FALSE(periodic.suggestions.empty());
  EXPECT_EQ(periodic.suggestions[0].id, "unshuffled_data/enable_shuffling");
  for (const auto& s : periodic.suggestions) EXPECT_NE(s.id, "unshuffled_data/draw_new_batch_every_step");
}

TEST(KbAdvisorShippedKnowledgeBase, AnOrderThatNeverRepeatsIsAdvisedAShuffleAcrossShards) {
  // Neighbouring batches alike and nothing one epoch later: shards moved whole each epoch. The advice says
  // so, and the reshuffle no longer claims a repeat the loss does not show.
  const auto d = test::diagnosis("training", {{"unshuffled_data", 0.6}});
  const Advice sharded = advise(
      d, {test::run_features({{"loss.residual_lag1_autocorr", 0.35}, {"loss.epoch_lag_autocorr", -0.04}})},
      nullptr);
  ASSERT_FALSE(sharded.suggestions.empty());
  EXPECT_EQ(sharded.suggestions[0].id, "unshuffled_data/shuffle_across_shards");
  EXPECT_THAT(sharded.suggestions[0].rationale, HasSubstr("correlate at 0.35"));
  EXPECT_THAT(sharded.suggestions[0].rationale, HasSubstr("nothing comes back"));
  for (const auto& s : sharded.suggestions) {
    if (s.id == "unshuffled_data/enable_shuffling") {
      EXPECT_THAT(s.rationale, Not(HasSubstr("repeats with the epoch")));
    }
  }
  // An order that repeats every epoch keeps the reshuffle first, with its repeat, and no shard advice.
  const Advice periodic = advise(
      d, {test::run_features({{"loss.residual_lag1_autocorr", 0.5}, {"loss.epoch_lag_autocorr", 0.7}})},
      nullptr);
  ASSERT_FALSE(periodic.suggestions.empty());
  EXPECT_EQ(periodic.suggestions[0].id, "unshuffled_data/enable_shuffling");
  EXPECT_THAT(periodic.suggestions[0].rationale, HasSubstr("repeats with the epoch"));
  for (const auto& s : periodic.suggestions) EXPECT_NE(s.id, "unshuffled_data/shuffle_across_shards");
  // Shards smaller than a batch: neighbouring batches no more alike than fresh ones, but each holds a few
  // classes (the output bias gradient), and nothing comes back one epoch later.
  const Advice few_classes = advise(d,
                                    {test::run_features({{"loss.residual_lag1_autocorr", 0.04},
                                                         {"grad.output_bias_imbalance", 3.4},
                                                         {"loss.epoch_lag_autocorr", -0.04}})},
                                    nullptr);
  ASSERT_FALSE(few_classes.suggestions.empty());
  EXPECT_EQ(few_classes.suggestions[0].id, "unshuffled_data/shuffle_across_shards");
  EXPECT_THAT(few_classes.suggestions[0].rationale, HasSubstr("3.4 times what batches drawn at random give"));
  EXPECT_THAT(few_classes.suggestions[0].rationale, Not(HasSubstr("correlate at")));  // 0.04 is no evidence
  // Mixed batches and independent neighbours: no shard advice.
  const Advice mixed = advise(d,
                              {test::run_features({{"loss.residual_lag1_autocorr", 0.04},
                                                   {"grad.output_bias_imbalance", 1.1},
                                                   {"loss.epoch_lag_autocorr", -0.04}})},
                              nullptr);
  for (const auto& s : mixed.suggestions) EXPECT_NE(s.id, "unshuffled_data/shuffle_across_shards");
}

// ---- malformed files ----------------------------------------------------------------------------------

std::string error_of(const std::string& fixture, bool patterns = false) {
  const std::string path = test::test_data("malformed/" + fixture);
  try {
    const json doc = read_json_file(path);
    if (patterns) {
      const auto templates = load_knowledge_base(test::test_data("kb_minimal")).templates;
      (void)parse_patterns(doc, path, templates);
    } else {
      (void)parse_templates(doc, path);
    }
  } catch (const KbError& e) {
    return e.what();
  }
  ADD_FAILURE() << fixture << " was accepted";
  return "";
}

TEST(KbAdvisorMalformedKnowledgeBase, SyntaxErrorNamesFileAndByte) {
  EXPECT_THAT(error_of("syntax_error.json"),
              AllOf(HasSubstr("syntax_error.json: byte "), HasSubstr("not valid JSON")));
}

TEST(KbAdvisorMalformedKnowledgeBase, UnknownPlaceholderNamesPointerAndName) {
  EXPECT_THAT(
      error_of("unknown_placeholder.json"),
      AllOf(HasSubstr("unknown_placeholder.json: /templates/raise_clip/rationale/0: expected only declared "
                      "parameters"),
            HasSubstr("{{median_norm}}")));
}

TEST(KbAdvisorMalformedKnowledgeBase, RequiredTextNeedsAParameterWithDefault) {
  EXPECT_THAT(error_of("title_without_default.json"),
              AllOf(HasSubstr("/templates/raise_clip/title: expected parameter \"clip\" to end with a "
                              "{\"default\": ...} source")));
}

TEST(KbAdvisorMalformedKnowledgeBase, UnknownSourceKind) {
  EXPECT_THAT(error_of("bad_source.json"),
              HasSubstr("/templates/raise_clip/parameters/clip/sources/0/from: expected one of \"feature\""));
}

TEST(KbAdvisorMalformedKnowledgeBase, MisspeltKeyIsNamed) {
  EXPECT_THAT(error_of("misspelt_key.json"),
              HasSubstr("/templates/shuffle/expected_improvment: unknown member \"expected_improvment\""));
}

TEST(KbAdvisorMalformedKnowledgeBase, WrongFormatVersion) {
  EXPECT_THAT(error_of("wrong_format.json"), HasSubstr("/format: expected \"cann-debug.kb-solutions/1\""));
}

TEST(KbAdvisorMalformedKnowledgeBase, ConditionWithAMisspeltKeyIsNamed) {
  EXPECT_THAT(
      error_of("bad_condition.json", true),
      AllOf(HasSubstr("bad_condition.json"), HasSubstr("/patterns/0/suggestions/0/when"), HasSubstr("abov")));
}

TEST(KbAdvisorMalformedKnowledgeBase, AnEmptyListOfConditionsIsNamed) {
  EXPECT_THAT(
      error_of("empty_condition_list.json", true),
      HasSubstr("/patterns/0/suggestions/0/when: expected a condition, or a non-empty list of conditions"));
}

TEST(KbAdvisorMalformedKnowledgeBase, PatternNamesAnUnknownTemplate) {
  EXPECT_THAT(error_of("unknown_template.json", true),
              HasSubstr("/patterns/0/suggestions/0/template: expected the id of a template in "
                        "solution_templates.json, got \"shufle\""));
}

TEST(KbAdvisorMalformedKnowledgeBase, DuplicateRootCause) {
  EXPECT_THAT(error_of("duplicate_root_cause.json", true),
              HasSubstr("/patterns/1/root_cause: expected a root cause that no earlier pattern answers"));
}

TEST(KbAdvisorMalformedKnowledgeBase, MissingFileIsNamed) {
  try {
    (void)load_knowledge_base(test::test_data("no_such_kb"));
    FAIL() << "loaded a missing knowledge base";
  } catch (const KbError& e) {
    EXPECT_THAT(e.what(), HasSubstr("no_such_kb/solution_templates.json: cannot open the file"));
  }
}

}  // namespace
}  // namespace cann_debug::plugins::kb
