// What the run's loss measures: the likelihood of classes (cross-entropy, NLL, binary cross-entropy: a
// classifier or a language model) or an error of predicted values (squared, absolute, Huber: a
// regression). The two scale their step noise differently: a cross-entropy starts at about ln(classes)
// for every sample and spreads as the classes separate, while a squared error of Gaussian residuals has a
// per-sample spread of sqrt(2) times its mean all along, so the noise of a batch of B is about sqrt(2/B)
// of the loss level. The graph reads the noise symptoms given the objective (docs/features-training.md,
// "The loss objective"). Read from the loss operator of the profiler trace (what ran), else config.json.
#pragma once

#include <optional>
#include <string_view>

#include "cann_debug/messages.hpp"
#include "feature_list.hpp"

namespace cann_debug::plugins::training_detail {

enum class LossObjective { classification, regression };

/// The objective and where it was read (a trace operator or the config).
struct NamedObjective {
  LossObjective objective;
  EvidenceRef source;
};

/// The objective of a loss operator: PyTorch's aten::cross_entropy_loss, aten::nll_loss*,
/// aten::binary_cross_entropy*, aten::ctc_loss, aten::kl_div / aten::mse_loss, aten::l1_loss,
/// aten::smooth_l1_loss, aten::huber_loss, and CANN's operator types of the same losses
/// (SoftmaxCrossEntropyWithLogits, SparseSoftmaxCrossEntropyWithLogits, NLLLoss, BinaryCrossEntropy,
/// SigmoidCrossEntropyWithLogits / MseLoss, L1LossGrad, SmoothL1Loss). Backward operators count as their
/// forward ones; absent for any other operator.
std::optional<LossObjective> objective_of_operator(std::string_view name);

/// The objective a loss function's name says ("cross_entropy", "CrossEntropyLoss", "nll", "bce_with_logits",
/// "mse", "MSELoss", "l1", "huber", "smooth_l1", ...); absent for a name it does not know.
std::optional<LossObjective> objective_of_loss_name(std::string_view name);

/// The objective config.json names: its `loss` (a string, or `loss.name`), else its `task` when that says
/// regression or classification ("image classification (10 classes)"); absent otherwise.
std::optional<NamedObjective> objective_of_config(const RunConfiguration& config);

/// Keeps the earliest loss operator of a trace, batch by batch.
class TraceObjectiveScanner {
 public:
  void add(const EventBatch& batch);
  std::optional<NamedObjective> result() const { return found_; }

 private:
  std::optional<NamedObjective> found_;
};

/// Appends `loss.objective_regression` (1 for a regression loss, 0 for a likelihood of classes) when the
/// objective is known, pointing at where it was read.
void add_objective_feature(const std::optional<NamedObjective>& objective, FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
