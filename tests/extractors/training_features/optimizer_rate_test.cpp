// Tests of the learning rate read against the optimizer's customary rate (optimizer_rate.hpp): the
// optimizer from the trace's Optimizer.step#<Class>.step or the config, the rate from the log or the config.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "optimizer_rate.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;
using training_detail::customary_learning_rate;
using training_detail::optimizer_of_step_event;

constexpr std::size_t kRateEventsPort = 2;

TEST(OptimizerRate, CustomaryRatesFollowTheOptimizerFamily) {
  EXPECT_EQ(customary_learning_rate("Adam"), 1e-3);
  EXPECT_EQ(customary_learning_rate("adamw"), 1e-3);
  EXPECT_EQ(customary_learning_rate("NAdam"), 2e-3);
  EXPECT_EQ(customary_learning_rate("Adamax"), 2e-3);
  EXPECT_EQ(customary_learning_rate("RAdam"), 1e-3);
  EXPECT_EQ(customary_learning_rate("RMSprop"), 1e-2);
  EXPECT_EQ(customary_learning_rate("Adagrad"), 1e-2);
  EXPECT_EQ(customary_learning_rate("Adadelta"), 1.0);
  EXPECT_EQ(customary_learning_rate("SGD"), 0.1);
  EXPECT_EQ(customary_learning_rate("sgd_momentum"), 0.1);
  // Vendor builds of the same algorithms.
  EXPECT_EQ(customary_learning_rate("FusedAdam"), 1e-3);
  EXPECT_EQ(customary_learning_rate("DeepSpeedCPUAdam"), 1e-3);
  EXPECT_EQ(customary_learning_rate("FusedLAMB"), 1e-3);
  EXPECT_EQ(customary_learning_rate("NpuFusedSGD"), 0.1);
  EXPECT_EQ(customary_learning_rate("Momentum"), 0.1);  // MindSpore's nn.Momentum
  EXPECT_EQ(customary_learning_rate("AdamWeightDecay"), 1e-3);
  // Unknown, and layer-wise scaled rates whose global rate has no customary value: nothing.
  EXPECT_FALSE(customary_learning_rate("LARS"));
  EXPECT_FALSE(customary_learning_rate("Shampoo"));
  EXPECT_FALSE(customary_learning_rate(""));
}

TEST(OptimizerRate, TheProfilersOptimizerStepNamesTheClass) {
  EXPECT_EQ(optimizer_of_step_event("Optimizer.step#AdamW.step"), "AdamW");
  EXPECT_EQ(optimizer_of_step_event("Optimizer.step#SGD.step"), "SGD");
  EXPECT_FALSE(optimizer_of_step_event("Optimizer.zero_grad#AdamW.zero_grad"));
  EXPECT_FALSE(optimizer_of_step_event("Optimizer.step#.step"));
  EXPECT_FALSE(optimizer_of_step_event("aten::add_"));
}

std::vector<json> rows_with_rate(double peak) {
  std::vector<json> rows;
  for (int i = 0; i < 40; ++i)  // a warm-up to the peak over the first ten steps
    rows.push_back({{"step", i},
                    {"time", 1000.0 + i},
                    {"loss", 2.0 / (1.0 + 0.1 * i)},
                    {"lr", peak * std::min(1.0, (i + 1) / 10.0)}});
  return rows;
}

Envelope optimizer_step(const std::string& name, std::int64_t step) {
  Event e;
  e.name = "Optimizer.step#" + name + ".step";
  e.start_ns = 5000000 + step * 1000000;
  e.duration_ns = 20000;
  e.key.step_id = step;
  EventBatch b;
  b.source_path = "trace.json";
  b.events = {e};
  return Envelope::make(CorrelationKey{}, std::move(b));
}

TEST(OptimizerRate, ThePeakRateIsReadAgainstTheConfigsOptimizer) {
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows_with_rate(0.5))},
                                        {kConfigPort, config_of({{"optimizer", {{"name", "adam"}}}})}});
  EXPECT_DOUBLE_EQ(value_of(set, "lr.peak_over_customary"), 500.0);
  EXPECT_DOUBLE_EQ(value_of(set, "lr.customary"), 1e-3);
  const auto refs = evidence_of(set, "lr.peak_over_customary");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[0].kind, "step");  // where the rate peaked: the end of the warm-up
  EXPECT_EQ(refs[0].first_step, 9);
  EXPECT_EQ(refs[1].kind, "config");
  EXPECT_EQ(refs[1].id, "optimizer adam");
  // An optimizer named as a plain string.
  EXPECT_DOUBLE_EQ(value_of(run_extractor({{kRecordsPort, records_of(rows_with_rate(0.05))},
                                           {kConfigPort, config_of({{"optimizer", "SGD"}})}}),
                            "lr.peak_over_customary"),
                   0.5);
}

TEST(OptimizerRate, TheOptimizerTheTraceSawRunWinsOverTheConfig) {
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows_with_rate(0.5))},
                                        {kRateEventsPort, optimizer_step("SGD", 6)},
                                        {kConfigPort, config_of({{"optimizer", {{"name", "adam"}}}})}});
  EXPECT_DOUBLE_EQ(value_of(set, "lr.peak_over_customary"), 5.0);
  const auto refs = evidence_of(set, "lr.peak_over_customary");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[1].kind, "operator");
  EXPECT_EQ(refs[1].id, "Optimizer.step#SGD.step");
  EXPECT_EQ(refs[1].first_step, 6);
}

TEST(OptimizerRate, TheConfigsRateStandsInForALogWithoutOne) {
  std::vector<json> rows;
  for (int i = 0; i < 20; ++i) rows.push_back({{"step", i}, {"loss", 1.0 / (1.0 + i)}});
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)},
                                        {kRateEventsPort, optimizer_step("RMSprop", 3)},
                                        {kConfigPort, config_of({{"lr", 0.3}})}});
  EXPECT_DOUBLE_EQ(value_of(set, "lr.peak_over_customary"), 30.0);
  EXPECT_EQ(evidence_of(set, "lr.peak_over_customary").at(0).kind, "config");
}

TEST(OptimizerRate, AConsoleLogsArgumentDumpNamesTheOptimizer) {
  // Megatron's rows carry the rate; the argument dump (train_log's "arguments" record) the optimizer.
  std::vector<json> rows = rows_with_rate(0.00015);
  rows.insert(rows.begin(), json{{"log_kind", "arguments"},
                                 {"arguments", {{"optimizer", "adam"}, {"lr", 0.00015}}},
                                 {"argument_lines", {{"optimizer", 160}, {"lr", 132}}}});
  const FeatureSet set = run_extractor({{kRecordsPort, records_of(rows)}});
  EXPECT_NEAR(value_of(set, "lr.peak_over_customary"), 0.15, 1e-12);
  const auto refs = evidence_of(set, "lr.peak_over_customary");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[1].kind, "line");
  EXPECT_EQ(refs[1].id, "optimizer adam");
  EXPECT_EQ(refs[1].first_step, 160);
  // The dump is no step: the loss features count the 40 rows only.
  EXPECT_EQ(evidence_of(set, "lr.peak_over_customary")[0].first_step, 9);
  // A config that names another optimizer wins over the log.
  EXPECT_DOUBLE_EQ(value_of(run_extractor({{kRecordsPort, records_of(rows)},
                                           {kConfigPort, config_of({{"optimizer", {{"name", "sgd"}}}})}}),
                            "lr.peak_over_customary"),
                   0.0015);
}

TEST(OptimizerRate, AbsentWithoutAKnownOptimizerOrARate) {
  // No optimizer named anywhere.
  EXPECT_FALSE(
      find(run_extractor({{kRecordsPort, records_of(rows_with_rate(0.5))}}), "lr.peak_over_customary"));
  // An optimizer without a customary rate.
  EXPECT_FALSE(find(run_extractor({{kRecordsPort, records_of(rows_with_rate(0.5))},
                                   {kConfigPort, config_of({{"optimizer", {{"name", "LARS"}}}})}}),
                    "lr.peak_over_customary"));
  // A known optimizer but no rate in the log or the config.
  std::vector<json> rows;
  for (int i = 0; i < 20; ++i) rows.push_back({{"step", i}, {"loss", 1.0 / (1.0 + i)}});
  EXPECT_FALSE(
      find(run_extractor({{kRecordsPort, records_of(rows)}, {kRateEventsPort, optimizer_step("Adam", 1)}}),
           "lr.peak_over_customary"));
}

}  // namespace
}  // namespace cann_debug::plugins
