// Tests of the loss objective (loss_objective.hpp): read from the loss operator of the profiler trace,
// else from config.json's loss or task, and written as loss.objective_regression.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "loss_objective.hpp"
#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;
using training_detail::LossObjective;
using training_detail::objective_of_loss_name;
using training_detail::objective_of_operator;

constexpr std::size_t kObjectiveEventsPort = 2;
constexpr auto kClassification = LossObjective::classification;
constexpr auto kRegression = LossObjective::regression;

TEST(LossObjective, LossOperatorsOfPyTorchAndCannNameTheObjective) {
  for (const char* op :
       {"aten::cross_entropy_loss", "aten::nll_loss_nd", "aten::nll_loss_backward",
        "aten::binary_cross_entropy_with_logits", "aten::ctc_loss", "aten::kl_div", "aten::multi_margin_loss",
        "SoftmaxCrossEntropyWithLogits", "SparseSoftmaxCrossEntropyWithLogits",
        "SigmoidCrossEntropyWithLogitsV2", "NLLLossGrad", "nn.Module: CrossEntropyLoss_0"})
    EXPECT_EQ(objective_of_operator(op), kClassification) << op;
  for (const char* op :
       {"aten::mse_loss", "aten::mse_loss_backward", "aten::l1_loss", "aten::smooth_l1_loss",
        "aten::huber_loss_backward", "MseLoss", "MseLossGrad", "SmoothL1LossV2", "L1LossGrad"})
    EXPECT_EQ(objective_of_operator(op), kRegression) << op;
  for (const char* op : {"aten::log_softmax", "aten::linear", "Optimizer.step#SGD.step",
                         "aten::margin_ranking_loss", "MatMul", ""})
    EXPECT_FALSE(objective_of_operator(op)) << op;
}

TEST(LossObjective, LossFunctionNamesOfAConfigNameTheObjective) {
  for (const char* name :
       {"cross_entropy", "CrossEntropyLoss", "ce", "nll", "BCE", "bce_with_logits", "NLLLoss"})
    EXPECT_EQ(objective_of_loss_name(name), kClassification) << name;
  for (const char* name :
       {"mse", "MSELoss", "l2", "L1", "mae", "huber", "smooth_l1", "SmoothL1Loss", "mean_squared_error"})
    EXPECT_EQ(objective_of_loss_name(name), kRegression) << name;
  for (const char* name : {"", "contrastive", "dice", "clip"})
    EXPECT_FALSE(objective_of_loss_name(name)) << name;
}

std::vector<json> falling_loss() {
  std::vector<json> rows;
  for (int i = 0; i < 30; ++i)
    rows.push_back({{"step", i}, {"time", 100.0 + i}, {"loss", 2.0 / (1.0 + 0.1 * i)}});
  return rows;
}

Envelope loss_operators(const std::vector<std::pair<std::string, std::int64_t>>& ops) {
  EventBatch b;
  b.source_path = "trace.json";
  for (const auto& [name, step] : ops) {
    Event e;
    e.name = name;
    e.start_ns = 5000000 + step * 1000000;
    e.duration_ns = 20000;
    e.key.step_id = step;
    b.events.push_back(e);
  }
  return Envelope::make(CorrelationKey{}, std::move(b));
}

TEST(LossObjective, TheConfigsLossOrTaskIsWrittenWithItsSource) {
  const FeatureSet mse =
      run_extractor({{kRecordsPort, records_of(falling_loss())},
                     {kConfigPort, config_of({{"loss", "mse"}, {"task", "classification"}})}});
  EXPECT_EQ(value_of(mse, "loss.objective_regression"), 1.0);  // the loss function wins over the task
  ASSERT_EQ(evidence_of(mse, "loss.objective_regression").size(), 1u);
  EXPECT_EQ(evidence_of(mse, "loss.objective_regression")[0].kind, "config");
  EXPECT_EQ(evidence_of(mse, "loss.objective_regression")[0].id, "loss mse");
  const FeatureSet task =
      run_extractor({{kRecordsPort, records_of(falling_loss())},
                     {kConfigPort, config_of({{"task", "image classification (10 classes)"}})}});
  EXPECT_EQ(value_of(task, "loss.objective_regression"), 0.0);
  EXPECT_EQ(evidence_of(task, "loss.objective_regression")[0].id, "task image classification (10 classes)");
  const FeatureSet named = run_extractor({{kRecordsPort, records_of(falling_loss())},
                                          {kConfigPort, config_of({{"loss", {{"name", "huber"}}}})}});
  EXPECT_EQ(value_of(named, "loss.objective_regression"), 1.0);
}

TEST(LossObjective, TheLossOperatorTheTraceSawRunWinsOverTheConfig) {
  const FeatureSet set = run_extractor(
      {{kRecordsPort, records_of(falling_loss())},
       {kObjectiveEventsPort,
        loss_operators({{"aten::linear", 3}, {"aten::mse_loss_backward", 4}, {"aten::mse_loss", 3}})},
       {kConfigPort, config_of({{"loss", "cross_entropy"}})}});
  EXPECT_EQ(value_of(set, "loss.objective_regression"), 1.0);
  const auto refs = evidence_of(set, "loss.objective_regression");
  ASSERT_EQ(refs.size(), 1u);
  EXPECT_EQ(refs[0].kind, "operator");
  EXPECT_EQ(refs[0].id, "aten::mse_loss");  // the earliest loss operator
  EXPECT_EQ(refs[0].first_step, 3);
}

TEST(LossObjective, AbsentWhenNothingNamesTheLoss) {
  EXPECT_FALSE(
      find(run_extractor({{kRecordsPort, records_of(falling_loss())}}), "loss.objective_regression"));
  EXPECT_FALSE(
      find(run_extractor({{kRecordsPort, records_of(falling_loss())},
                          {kObjectiveEventsPort, loss_operators({{"aten::linear", 1}})},
                          {kConfigPort, config_of({{"loss", "contrastive"}, {"task", "retrieval"}})}}),
           "loss.objective_regression"));
}

}  // namespace
}  // namespace cann_debug::plugins
