// Suggestion parameters come from the measured context: first source that exists wins, transforms and
// rounding as declared; placeholders and number formatting.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "advice_builder.hpp"
#include "kb_json.hpp"
#include "knowledge_base.hpp"
#include "measured_context.hpp"
#include "template_text.hpp"
#include "test_support.hpp"
#include "value_format.hpp"

namespace cann_debug::plugins::kb {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const KnowledgeBase& shipped_kb() {
  static const KnowledgeBase kb = load_knowledge_base(test::shipped_kb_dir());
  return kb;
}

std::optional<json> param(const std::string& tpl, const std::string& name,
                          const std::vector<FeatureSet>& features, const json* config,
                          const RootCause* rc = nullptr) {
  const Diagnosis d = test::diagnosis("training", {});
  MeasuredContext c{&features, config, &d, rc};
  return resolve_parameter(shipped_kb().templates.at(tpl).parameters.at(name), c);
}

TEST(KbAdvisorParameters, ClipThresholdIsOneAndAHalfTimesTheMeasuredMedianNorm) {
  const auto features = std::vector{test::run_features({{"grad_norm.median", 3.37}})};
  const json config = {{"clip_threshold", 0.05}};
  // 3 x 3.37 = 10.11, two significant digits.
  EXPECT_DOUBLE_EQ(param("raise_clip_threshold", "new_clip", features, &config)->get<double>(), 10.0);
}

TEST(KbAdvisorParameters, FallsBackToConfigThenDefault) {
  const json config = {{"clip_threshold", 0.05}};
  EXPECT_DOUBLE_EQ(param("raise_clip_threshold", "new_clip", {}, &config)->get<double>(), 0.5);
  EXPECT_DOUBLE_EQ(param("raise_clip_threshold", "new_clip", {}, nullptr)->get<double>(), 5.0);
  // A null config value (clipping off) does not count as a value.
  const json off = {{"clip_threshold", nullptr}};
  EXPECT_DOUBLE_EQ(param("raise_clip_threshold", "new_clip", {}, &off)->get<double>(), 5.0);
}

TEST(KbAdvisorParameters, MeasuredOnlyParameterIsAbsentWithoutItsFeature) {
  EXPECT_FALSE(param("raise_clip_threshold", "clip_share", {}, nullptr).has_value());
}

TEST(KbAdvisorParameters, ValuesAtOrBelowCiteAboveCountAsMissing) {
  const auto none = std::vector{test::run_features({{"loss.nonfinite_fraction", 0.0}})};
  EXPECT_FALSE(param("lower_learning_rate", "nonfinite_share", none, nullptr).has_value());
  const auto some = std::vector{test::run_features({{"loss.nonfinite_fraction", 0.25}})};
  EXPECT_DOUBLE_EQ(param("lower_learning_rate", "nonfinite_share", some, nullptr)->get<double>(), 0.25);
}

TEST(KbAdvisorParameters, LearningRateFromTheLogBeatsTheConfig) {
  const auto features = std::vector{test::run_features({{"lr.initial", 1.5}})};
  const json config = json::parse(R"({"optimizer": {"lr": 0.2}})");
  EXPECT_DOUBLE_EQ(param("lower_learning_rate", "new_lr", features, &config)->get<double>(), 0.45);
  EXPECT_DOUBLE_EQ(param("lower_learning_rate", "new_lr", {}, &config)->get<double>(), 0.06);
}

TEST(KbAdvisorParameters, ThreadCountFromMeasuredCoresClampedAndInteger) {
  const auto features = std::vector{test::run_features({{"host.cores", 2}})};
  const json config = {{"cpu_count", 64}};
  const auto n = param("match_threads_to_cores", "new_threads", features, &config);
  ASSERT_TRUE(n && n->is_number_integer());
  EXPECT_EQ(n->get<int>(), 2);
  EXPECT_EQ(param("match_threads_to_cores", "last_core", features, &config)->get<int>(), 1);
}

TEST(KbAdvisorParameters, BucketSizeFromModelBytesWithinLimits) {
  const json small = {{"param_bytes", 8 * 1048576}};  // 8 MiB of gradients -> 2 MB buckets
  EXPECT_DOUBLE_EQ(param("raise_bucket_cap", "bucket_mb", {}, &small)->get<double>(), 2.0);
  const json huge = {{"param_bytes", 4096.0 * 1048576}};  // capped at the DDP default
  EXPECT_DOUBLE_EQ(param("raise_bucket_cap", "bucket_mb", {}, &huge)->get<double>(), 25.0);
  const json tiny = {{"param_bytes", 65536}};  // at least 1 MB
  EXPECT_DOUBLE_EQ(param("raise_bucket_cap", "bucket_mb", {}, &tiny)->get<double>(), 1.0);
}

TEST(KbAdvisorParameters, DivideByAnotherSource) {
  const json config = {{"global_batch_size", 64}, {"world_size", 4}};
  EXPECT_EQ(param("rebalance_shards", "per_rank_batch", {}, &config)->get<int>(), 16);
  const json no_world = {{"global_batch_size", 64}};
  EXPECT_FALSE(param("rebalance_shards", "per_rank_batch", {}, &no_world).has_value());
  EXPECT_EQ(param("rebalance_shards", "per_rank_batch_code", {}, &no_world)->get<std::string>(),
            "global_batch_size // world_size");
}

TEST(KbAdvisorParameters, MultiplyByAnotherSource) {
  // A warm-up in batches of 1, 2, ..., B, twice over, is B(B+1) requests: every batch size gets the
  // profiling call and the optimising call of TorchScript's executor before live traffic.
  const json four = {{"max_batch_size", 4}};
  EXPECT_EQ(param("warm_up_before_serving", "warmup", {}, &four)->get<int>(), 20);
  const json one = {{"max_batch_size", 1}};  // 2 requests, raised to the minimum of 10
  EXPECT_EQ(param("warm_up_before_serving", "warmup", {}, &one)->get<int>(), 10);
  const json sixteen = {{"max_batch_size", 16}};  // 272, capped
  EXPECT_EQ(param("warm_up_before_serving", "warmup", {}, &sixteen)->get<int>(), 200);
  const json unknown = json::object();
  EXPECT_EQ(param("warm_up_before_serving", "warmup", {}, &unknown)->get<int>(), 20);
}

TEST(KbAdvisorParameters, EvidenceOfTheRootCauseThenOfTheFeature) {
  FeatureSet set = test::run_features({{"comm.link_bandwidth_ratio", 0.3}});
  set.features[0].evidence.push_back({"link", "hccs2->3", kNoTimestamp, kNoTimestamp, -1, -1});
  EXPECT_EQ(param("diagnose_link", "link", {set}, nullptr)->get<std::string>(), "hccs2->3");
  RootCause rc{"slow_link", 0.8, {}, {{"link", "roce0->4", kNoTimestamp, kNoTimestamp, -1, -1}}, ""};
  EXPECT_EQ(param("diagnose_link", "link", {set}, nullptr, &rc)->get<std::string>(), "roce0->4");
}

TEST(KbAdvisorParameters, RunScopeAndUnlabelledFeaturesArePreferred) {
  FeatureSet rank{"rank", {{"step.time", 9.0, "ms", {}, {{"rank", "1"}}}}};
  FeatureSet run{"run", {{"step.time", 5.0, "ms", {}, {{"rank", "0"}}}, {"step.time", 4.0, "ms", {}, {}}}};
  const std::vector<FeatureSet> sets{rank, run};
  EXPECT_DOUBLE_EQ(find_feature(sets, "step.time", {})->value, 4.0);
  EXPECT_DOUBLE_EQ(find_feature(sets, "step.time", {{"rank", "1"}})->value, 9.0);
  EXPECT_EQ(find_feature(sets, "step.absent", {}), nullptr);
}

TEST(KbAdvisorParameters, DottedConfigKeys) {
  const json config = json::parse(R"({"optimizer": {"lr": 0.1, "name": "sgd"}, "clip_threshold": null})");
  EXPECT_DOUBLE_EQ(find_config_value(config, "optimizer.lr")->get<double>(), 0.1);
  EXPECT_EQ(find_config_value(config, "optimizer.momentum"), nullptr);
  EXPECT_EQ(find_config_value(config, "optimizer.lr.x"), nullptr);
  EXPECT_EQ(find_config_value(config, "clip_threshold"), nullptr);
}

TEST(KbAdvisorPlaceholders, NamesWholeValuesAndSubstitution) {
  EXPECT_EQ(placeholder_names("a {{x}} b {{y_2}}"), (std::vector<std::string>{"x", "y_2"}));
  EXPECT_EQ(whole_placeholder("{{clip}}"), "clip");
  EXPECT_FALSE(whole_placeholder("max {{clip}}").has_value());
  EXPECT_THROW(placeholder_names("a {{x"), std::invalid_argument);
  EXPECT_THROW(placeholder_names("a {{X}}"), std::invalid_argument);
  auto lookup = [](const std::string& n) -> std::optional<std::string> {
    return n == "x" ? std::optional<std::string>("7") : std::nullopt;
  };
  EXPECT_EQ(substitute("x={{x}}.", lookup), "x=7.");
  EXPECT_FALSE(substitute("{{x}} {{y}}", lookup).has_value());
}

TEST(KbAdvisorValueFormat, NumbersReadSensibly) {
  EXPECT_EQ(format_number(4.0), "4");
  EXPECT_EQ(format_number(5.0625), "5.06");
  EXPECT_EQ(format_number(0.123456), "0.123");
  EXPECT_EQ(format_number(123.456), "123");
  EXPECT_EQ(format_number(0.00001234), "1.23e-05");
  EXPECT_EQ(format_value(0.873, "percent"), "87.3%");
  EXPECT_EQ(format_value(3.0 * 1048576, "bytes"), "3 MiB");
  EXPECT_EQ(format_value(12.5, "ratio"), "12.5x");
  EXPECT_EQ(format_value(json("rank3"), "number"), "rank3");
}

TEST(KbAdvisorRendering, RationaleCitesMeasuredValuesAndDropsMissingOnes) {
  const auto features =
      std::vector{test::run_features({{"grad_norm.median", 3.37}, {"grad_norm.clip_fraction", 0.98}})};
  const Diagnosis d = test::diagnosis("training", {{"grad_clip_too_low", 0.9}});
  std::vector<std::string> unanswered;
  const cann_debug::kb::OutcomeStore history;
  const Advice a = build_advice(shipped_kb(), history, {&d, &features, nullptr}, {}, unanswered).at(0);
  ASSERT_FALSE(a.suggestions.empty());
  const Suggestion& s = a.suggestions.front();
  EXPECT_EQ(s.id, "grad_clip_too_low/raise_clip_threshold");
  EXPECT_EQ(s.title, "Raise the gradient-clipping threshold to 10");
  EXPECT_EQ(s.config_patch, json({{"clip_threshold", 10.0}}));
  EXPECT_THAT(s.rationale, HasSubstr("98% of the steps were clipped."));
  EXPECT_THAT(s.rationale, HasSubstr("10 is 3x the median pre-clip norm"));
  EXPECT_THAT(s.rationale,
              ::testing::Not(HasSubstr("configured threshold")));  // no config: sentence left out
  EXPECT_THAT(s.code.at("pytorch"), HasSubstr("max_norm=10"));
}

TEST(KbAdvisorRendering, UnresolvedWholeValueDropsThePatchKey) {
  const Diagnosis d = test::diagnosis("distributed", {{"load_imbalance", 0.9}});
  std::vector<std::string> unanswered;
  const cann_debug::kb::OutcomeStore history;
  const std::vector<FeatureSet> none;
  const Advice a = build_advice(shipped_kb(), history, {&d, &none, nullptr}, {}, unanswered).at(0);
  ASSERT_FALSE(a.suggestions.empty());
  EXPECT_FALSE(a.suggestions.front().config_patch.contains("batch_size_per_rank"));
  const json config = {{"global_batch_size", 64}, {"world_size", 4}};
  const Advice b = build_advice(shipped_kb(), history, {&d, &none, &config}, {}, unanswered).at(0);
  EXPECT_EQ(b.suggestions.front().config_patch.at("batch_size_per_rank"), 16);
  EXPECT_THAT(b.suggestions.front().code.at("pytorch"), HasSubstr("batch_size=16"));
}

}  // namespace
}  // namespace cann_debug::plugins::kb
