// Tests of the class mix of the batches (batch_class_mix.hpp): the output layer's bias gradient times
// sqrt(batch size) over the loss, from the per-layer gradient norms of the log.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <string>
#include <vector>

#include "training_rows.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using namespace training_test;

// 40 steps of a loss falling from 2 to 0.4 whose output bias gradient is `imbalance` x (1 - e^-loss) /
// sqrt(64); the layers are numbered modules 0, 2 and 10 (10 is the output layer), `last` names the output
// module's bias.
std::vector<json> rows_with_bias(double imbalance, const std::string& last = "10.bias") {
  std::vector<json> rows;
  for (int i = 0; i < 40; ++i) {
    const double loss = 0.4 + 1.6 * std::exp(-i / 10.0);
    json layers = {
        {"0.weight", 0.5}, {"0.bias", 0.1}, {"2.weight", 0.4}, {"2.bias", 5.0}, {"10.weight", 0.3}};
    layers[last] = imbalance * -std::expm1(-loss) / 8.0;
    rows.push_back({{"step", i}, {"loss", loss}, {"grad_norm", 1.0}, {"layer_grad_norms", layers}});
  }
  return rows;
}

FeatureSet class_mix_features(const std::vector<json>& rows, json config = {{"batch_size", 64}}) {
  return run_extractor({{kRecordsPort, records_of(rows)}, {kConfigPort, config_of(config)}});
}

TEST(BatchClassMix, TheOutputBiasGradientAgainstTheLossSaysHowMixedTheBatchesAre) {
  EXPECT_NEAR(value_of(class_mix_features(rows_with_bias(1.0)), "grad.output_bias_imbalance"), 1.0, 1e-9);
  const FeatureSet few = class_mix_features(rows_with_bias(4.0));
  EXPECT_NEAR(value_of(few, "grad.output_bias_imbalance"), 4.0, 1e-9);
  const auto refs = evidence_of(few, "grad.output_bias_imbalance");
  ASSERT_EQ(refs.size(), 2u);
  EXPECT_EQ(refs[1].kind, "layer");
  EXPECT_EQ(refs[1].id, "10.bias");  // module 10 comes after module 2 in network order
}

TEST(BatchClassMix, ABatchOfOneClassTheModelGetsConfidentlyWrongIsConcentrated) {
  // Blocks of one class: the first batches of a new block are predicted as the old class with
  // p(class) = 0.01, so each sample's loss is 4.6 while its bias gradient is (p - 1, 1 - p): the batch
  // mean keeps that full norm, 1.4. Read against the loss it looked like a mixed batch (1.4 x 8 / 4.6 =
  // 2.4); the error the loss implies, 1 - e^-4.6, puts it at 11.
  std::vector<json> rows;
  for (int i = 0; i < 40; ++i) {
    const double p = i % 2 == 0 ? 0.01 : 0.5;
    const double loss = -std::log(p);
    rows.push_back({{"step", i},
                    {"loss", loss},
                    {"grad_norm", 2.0},
                    {"layer_grad_norms",
                     {{"0.weight", 0.5}, {"10.weight", 0.3}, {"10.bias", std::sqrt(2.0) * (1 - p)}}}});
  }
  const double imbalance = value_of(class_mix_features(rows), "grad.output_bias_imbalance");
  EXPECT_GT(imbalance, 8.0);
  EXPECT_LT(imbalance, 12.0);
}

TEST(BatchClassMix, TheOutputLayerIsTheModuleModelCodeNamesSo) {
  // A small Transformer's parameters: a learnt position table sorts after every module by name, so the last
  // parameter in network order is no layer at all; the classifier is the module named head.
  std::vector<json> rows = rows_with_bias(4.0);
  for (json& r : rows) {
    json& layers = r["layer_grad_norms"];
    layers["head.bias"] = layers["10.bias"];
    layers["head.weight"] = layers["10.weight"];
    layers.erase("10.bias");
    layers.erase("10.weight");
    layers["position"] = 0.7;
  }
  const FeatureSet set = class_mix_features(rows);
  EXPECT_NEAR(value_of(set, "grad.output_bias_imbalance"), 4.0, 1e-9);
  EXPECT_EQ(evidence_of(set, "grad.output_bias_imbalance")[1].id, "head.bias");
}

TEST(BatchClassMix, StepsWhoseLossFellUnderATenthOfTheFirstAreLeftOut) {
  std::vector<json> rows = rows_with_bias(1.0);
  for (int i = 0; i < 30; ++i) {  // a memorised tail: tiny losses whose bias gradient does not follow
    json late = rows.back();
    late["step"] = 40 + i;
    late["loss"] = 0.01;
    late["layer_grad_norms"]["10.bias"] = 0.05;
    rows.push_back(late);
  }
  EXPECT_NEAR(value_of(class_mix_features(rows), "grad.output_bias_imbalance"), 1.0, 1e-9);
}

TEST(BatchClassMix, AbsentWithoutABatchSizeOrAnOutputBias) {
  EXPECT_FALSE(find(class_mix_features(rows_with_bias(4.0), json::object()), "grad.output_bias_imbalance"));
  // The output module logs no bias (a head without one): another module's bias says nothing of the classes.
  std::vector<json> rows = rows_with_bias(4.0);
  for (auto& r : rows) r["layer_grad_norms"].erase("10.bias");
  EXPECT_FALSE(find(class_mix_features(rows), "grad.output_bias_imbalance"));
  std::vector<json> without_layers;
  for (int i = 0; i < 40; ++i) without_layers.push_back({{"step", i}, {"loss", 2.0 - 0.01 * i}});
  EXPECT_FALSE(find(class_mix_features(without_layers), "grad.output_bias_imbalance"));
}

}  // namespace
}  // namespace cann_debug::plugins
