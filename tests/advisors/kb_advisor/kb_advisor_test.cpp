// The kb_advisor component: ports, ordering by confidence then priority, healthy runs, the history file
// and option validation.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "cann_debug/manifest.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "kb_advisor.hpp"
#include "test_support.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using testing::Harness;
using ::testing::HasSubstr;

constexpr std::size_t kDiagnosis = 0;
constexpr std::size_t kFeatures = 1;
constexpr std::size_t kConfig = 2;

json options(const std::string& kb_dir, const std::string& history = "") {
  return {{"kb_dir", kb_dir}, {"history", history}};
}

std::vector<Advice> run(const json& opts, const std::vector<std::pair<std::size_t, Envelope>>& inputs) {
  Harness h(kb_advisor_factory(), opts);
  h.run_processor(inputs);
  return h.outputs_of<Advice>(0);
}

Envelope diag(Diagnosis d) {
  return Envelope::make(CorrelationKey{}, std::move(d));
}

std::vector<std::string> ids(const Advice& a) {
  std::vector<std::string> out;
  for (const auto& s : a.suggestions) out.push_back(s.id);
  return out;
}

TEST(KbAdvisorComponent, ManifestIsSound) {
  EXPECT_TRUE(check_manifest(kb_advisor_factory().manifest()).empty());
}

TEST(KbAdvisorComponent, OrdersByConfidenceThenPriority) {
  const auto d = kb::test::diagnosis("training", {{"unshuffled_data", 0.3}, {"grad_clip_too_low", 0.6}});
  const auto out = run(options(kb::test::test_data("kb_minimal")), {{kDiagnosis, diag(d)}});
  // One advice per root cause, the most likely first.
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[0].for_root_cause, "grad_clip_too_low");
  EXPECT_EQ(out[1].for_root_cause, "unshuffled_data");
  // grad_clip_too_low lists shuffle (priority 2) before raise_clip (priority 1): priority wins.
  EXPECT_EQ(ids(out[0]),
            (std::vector<std::string>{"grad_clip_too_low/raise_clip", "grad_clip_too_low/shuffle"}));
  EXPECT_EQ(ids(out[1]), (std::vector<std::string>{"unshuffled_data/shuffle"}));
  EXPECT_EQ(out[0].suggestions[0].priority, 1);
  EXPECT_EQ(out[0].suggestions[1].priority, 2);
  EXPECT_DOUBLE_EQ(out[0].suggestions[1].expected_improvement, 0.1);  // the pattern's override
  EXPECT_DOUBLE_EQ(out[1].suggestions[0].expected_improvement, 0.7);  // the template's prior
  EXPECT_THAT(out[1].suggestions[0].rationale, HasSubstr("Answers unshuffled_data (confidence 30%)."));
}

TEST(KbAdvisorComponent, MaxRootCausesLimitsTheAdvice) {
  const auto d = kb::test::diagnosis("training", {{"unshuffled_data", 0.3}, {"grad_clip_too_low", 0.6}});
  json opts = options(kb::test::test_data("kb_minimal"));
  opts["max_root_causes"] = 1;
  const auto out = run(opts, {{kDiagnosis, diag(d)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].for_root_cause, "grad_clip_too_low");
}

TEST(KbAdvisorComponent, UnlikelyCausesAndHealthyAreSkipped) {
  const auto d = kb::test::diagnosis(
      "training", {{"healthy", 0.5}, {"grad_clip_too_low", 0.48}, {"unshuffled_data", 0.02}});
  const auto out = run(options(kb::test::test_data("kb_minimal")), {{kDiagnosis, diag(d)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(ids(out[0]),
            (std::vector<std::string>{"grad_clip_too_low/raise_clip", "grad_clip_too_low/shuffle"}));
}

TEST(KbAdvisorComponent, HealthyDiagnosisGetsNoSuggestions) {
  const auto d = kb::test::diagnosis("training", {{"healthy", 0.9}, {"grad_clip_too_low", 0.1}}, true);
  const auto out = run(options(kb::test::shipped_kb_dir()), {{kDiagnosis, diag(d)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].for_root_cause, "healthy");
  EXPECT_TRUE(out[0].suggestions.empty());
}

// Input that held no signal the graph reads: the ranking is the graph's prior, and no fix follows from it.
TEST(KbAdvisorComponent, UndeterminedDiagnosisGetsNoSuggestions) {
  auto d = kb::test::diagnosis("training", {{"healthy", 0.27}, {"unshuffled_data", 0.12}}, false);
  auto out = run(options(kb::test::shipped_kb_dir()), {{kDiagnosis, diag(d)}});
  ASSERT_FALSE(out.empty());  // the same ranking with evidence behind it is answered
  d.details["undetermined"] = "the input holds none of the signals the training graph reads";
  out = run(options(kb::test::shipped_kb_dir()), {{kDiagnosis, diag(d)}});
  EXPECT_TRUE(out.empty());
}

TEST(KbAdvisorComponent, ParametersFromFeaturesAndConfigWhicheverArrivesFirst) {
  const auto d = kb::test::diagnosis("training", {{"grad_clip_too_low", 0.9}});
  RunConfiguration config{"config.json", {{"clip_threshold", 0.05}}};
  // Diagnosis first, then the config: parameters are computed at end of stream.
  auto out = run(options(kb::test::test_data("kb_minimal")),
                 {{kDiagnosis, diag(d)}, {kConfig, Envelope::make(CorrelationKey{}, config)}});
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].suggestions[0].config_patch, json({{"clip_threshold", 0.5}}));  // 10 x the config's
  out =
      run(options(kb::test::test_data("kb_minimal")),
          {{kFeatures, Envelope::make(CorrelationKey{}, kb::test::run_features({{"grad_norm.median", 2.0}}))},
           {kConfig, Envelope::make(CorrelationKey{}, config)},
           {kDiagnosis, diag(d)}});
  EXPECT_EQ(out[0].suggestions[0].config_patch, json({{"clip_threshold", 3.0}}));  // 1.5 x the median
  EXPECT_EQ(out[0].suggestions[0].title, "Raise the clip threshold to 3");
}

TEST(KbAdvisorComponent, HistoryReplacesThePrior) {
  const auto d = kb::test::diagnosis("training", {{"grad_clip_too_low", 0.9}});
  const auto out = run(options(kb::test::test_data("kb_minimal"), kb::test::test_data("history_valid.json")),
                       {{kDiagnosis, diag(d)}});
  ASSERT_EQ(out[0].suggestions.size(), 2u);
  const Suggestion& s = out[0].suggestions[0];
  EXPECT_EQ(s.id, "grad_clip_too_low/raise_clip");
  EXPECT_EQ(s.improvement_source, "history");
  // The run's context (training, nothing else known) has two validated trials, 0.2 and 0.4; the resnet
  // trial that failed and lr_too_high's outcome are not this context's.
  EXPECT_NEAR(s.expected_improvement, 0.3, 1e-12);
  EXPECT_EQ(s.history.at("trials"), 2);
  EXPECT_EQ(s.history.at("successes"), 2);
  EXPECT_NEAR(s.history.at("success_probability").get<double>(), 0.75, 1e-12);  // Beta(3, 1)
  EXPECT_EQ(s.history.at("same_context"), true);
  EXPECT_EQ(out[0].suggestions[1].improvement_source, "prior");  // no outcome recorded for shuffle
  EXPECT_TRUE(out[0].suggestions[1].history.is_null());
}

TEST(KbAdvisorComponent, HistoryOfOtherContextsIsPooledWhenTheRunsOwnHasNone) {
  const auto d = kb::test::diagnosis("training", {{"grad_clip_too_low", 0.9}});
  RunConfiguration config{"config.json", {{"model", {{"type", "transformer"}}}, {"steps", 100}}};
  const auto out = run(options(kb::test::test_data("kb_minimal"), kb::test::test_data("history_valid.json")),
                       {{kDiagnosis, diag(d)}, {kConfig, Envelope::make(CorrelationKey{}, config)}});
  const Suggestion& s = out[0].suggestions.at(0);
  EXPECT_EQ(s.improvement_source, "history");
  EXPECT_EQ(s.history.at("same_context"), false);
  EXPECT_EQ(s.history.at("trials"), 3);  // the two unknown-model trials and the resnet one
  EXPECT_NEAR(s.expected_improvement, (0.2 + 0.4 - 0.5) / 3, 1e-12);
  EXPECT_EQ(s.history.at("context"), "training/transformer/unknown/unknown/1");
}

TEST(KbAdvisorComponent, ValidatedSuggestionsRankFirstAndFailedOnesLast) {
  const auto d = kb::test::diagnosis("training", {{"grad_clip_too_low", 0.9}});
  RunConfiguration config{"config.json", {{"model", {{"type", "mlp"}}}, {"steps", 100}}};
  auto out = run(options(kb::test::test_data("kb_minimal"), kb::test::test_data("history_ranked.json")),
                 {{kDiagnosis, diag(d)}, {kConfig, Envelope::make(CorrelationKey{}, config)}});
  // Without history raise_clip (priority 1) comes first; in mlp runs shuffle validated 3 of 3 times and
  // raise_clip 0 of 3.
  EXPECT_EQ(ids(out[0]),
            (std::vector<std::string>{"grad_clip_too_low/shuffle", "grad_clip_too_low/raise_clip"}));
  EXPECT_NEAR(out[0].suggestions[0].expected_improvement, 0.6, 1e-12);
  out = run(options(kb::test::test_data("kb_minimal")), {{kDiagnosis, diag(d)}});
  EXPECT_EQ(ids(out[0]),
            (std::vector<std::string>{"grad_clip_too_low/raise_clip", "grad_clip_too_low/shuffle"}));
}

TEST(KbAdvisorComponent, MissingHistoryFileMeansPriors) {
  const auto d = kb::test::diagnosis("training", {{"grad_clip_too_low", 0.9}});
  const auto out = run(options(kb::test::test_data("kb_minimal"), kb::test::test_data("no_history_yet.json")),
                       {{kDiagnosis, diag(d)}});
  EXPECT_EQ(out[0].suggestions[0].improvement_source, "prior");
}

TEST(KbAdvisorComponent, MalformedHistoryNamesFileAndPointer) {
  Harness h(kb_advisor_factory(),
            options(kb::test::test_data("kb_minimal"), kb::test::test_data("history_malformed.json")));
  try {
    h.component().start();
    FAIL() << "accepted a malformed history";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(),
                HasSubstr("history_malformed.json: at /outcomes/1/gain_sum: expected a finite number"));
  }
}

TEST(KbAdvisorComponent, ValidateRejectsAMissingKbDir) {
  try {
    Harness h(kb_advisor_factory(), options(kb::test::test_data("no_such_kb")));
    FAIL() << "accepted a missing kb_dir";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("kb_dir: "));
    EXPECT_THAT(e.what(), HasSubstr("is not a folder"));
  }
}

TEST(KbAdvisorComponent, MalformedKnowledgeBaseFailsAtStart) {
  Harness h(kb_advisor_factory(), options(kb::test::test_data("malformed_kb")));
  EXPECT_THROW(
      {
        try {
          h.component().start();
        } catch (const std::runtime_error& e) {
          EXPECT_THAT(e.what(),
                      HasSubstr("malformed_kb/solution_templates.json: /templates/shuffle/risk: expected a "
                                "non-empty string"));
          throw;
        }
      },
      std::runtime_error);
}

}  // namespace
}  // namespace cann_debug::plugins
