// The learning rate a run used against the one its optimizer is customarily run at: an Adam given SGD's
// 0.1 (a common slip when switching optimizers) or a rate tens of times a known-good one. The optimizer is
// named by the profiler trace, whose optimizer step is recorded as `Optimizer.step#<Class>.step` (PyTorch's
// optimizer hook), by config.json (`optimizer.name`, or `optimizer` as a string), or by the argument dump
// of a Megatron-style console log.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cann_debug/messages.hpp"
#include "feature_list.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins::training_detail {

/// The optimizer of a run and where that was read (a trace operator or the config).
struct NamedOptimizer {
  std::string name;
  EvidenceRef source;
};

/// The rate an optimizer is customarily run at: PyTorch's default learning rate for the adaptive ones
/// (Adam, AdamW, RAdam 1e-3; NAdam, Adamax 2e-3; RMSprop, Adagrad 1e-2; Adadelta 1.0) and LAMB 1e-3, and 0.1
/// for SGD and MindSpore's Momentum (no default; 0.1 is the rate of the ResNet recipes at a batch of 256).
/// Matched on the lowercase name, vendor prefixes and suffixes allowed (FusedAdam, DeepSpeedCPUAdam,
/// Adam8bit, npu_fused_sgd). Absent for an optimizer it does not know (LARS and LARC, whose global rate runs
/// from 1 to 30, included).
std::optional<double> customary_learning_rate(std::string_view optimizer);

/// The optimizer class of a PyTorch profiler event `Optimizer.step#<Class>.step`; absent for other events.
std::optional<std::string> optimizer_of_step_event(std::string_view event_name);

/// Keeps the first optimizer step event of a trace, batch by batch.
class TraceOptimizerScanner {
 public:
  void add(const EventBatch& batch);
  std::optional<NamedOptimizer> result() const { return found_; }

 private:
  std::optional<NamedOptimizer> found_;
};

/// The run's optimizer from the config (`optimizer.name`, else `optimizer` when it is a string); absent
/// otherwise.
std::optional<NamedOptimizer> optimizer_of_config(const RunConfiguration& config);

/// The optimizer of a trainer's argument dump (a record with log_kind "arguments", from the train_log
/// reader: Megatron's `optimizer ..... adam`), pointing at its line; absent for other records.
std::optional<NamedOptimizer> optimizer_of_log_arguments(const Record& record);

/// Appends `lr.customary` (the optimizer's customary rate) and `lr.peak_over_customary` (the highest
/// learning rate of the rows, the config's rate when no row has one, over it), when both are known.
void add_rate_over_customary(const std::vector<LogRow>& rows, const RunConfig& config,
                             const std::optional<NamedOptimizer>& optimizer, FeatureList& out);

}  // namespace cann_debug::plugins::training_detail
