// What the training feature extractor collects from its inputs: one row per optimizer step (or per epoch
// for epoch-level logs) and the few config values it may use as extra evidence.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::training_detail {

/// One row of a training log. Absent numbers are nullopt; non-finite ones ("nan"/"inf" strings) are
/// kept as NaN/inf so they can be counted.
struct LogRow {
  std::int64_t index = 0;  // position in arrival order (0-based)
  std::int64_t step = -1;  // 'step' (or the correlation key's step); -1 when absent
  TimestampNs time_ns = kNoTimestamp;
  std::optional<std::int64_t> epoch;
  std::optional<double> loss;
  std::optional<double> grad_norm;  // total L2 norm before clipping
  std::optional<double> lr;
  std::int64_t segment = 0;  // restarts from a checkpoint before this row (train_log's "segment")
  std::optional<double> skipped_iterations;  // Megatron's per-interval counters
  std::optional<double> nan_iterations;
  std::optional<double> loss_scale;         // fp16/bf16 dynamic loss scale
  std::optional<double> iteration_time_ms;  // elapsed time per iteration
  std::optional<double> tokens_per_second;
  std::optional<double> global_batch_size;  // samples per optimizer step over all data-parallel ranks
  bool has_clip_field = false;              // the row says whether clipping was in force ('clip_threshold')
  std::optional<double> clip_threshold;     // null in the row = no clipping
  std::map<std::string, double> layer_grad_norms;
};

/// The row's step, or its position in arrival order when the log has no step.
inline std::int64_t step_of(const LogRow& r) {
  return r.step >= 0 ? r.step : r.index;
}

/// Config values (config.json) that are used as parameters or extra evidence, never as a verdict.
struct RunConfig {
  std::optional<std::int64_t> steps_per_epoch;
  std::optional<std::int64_t> batch_size;
  std::optional<double> clip_threshold;
  std::optional<double> lr;
  std::optional<std::int64_t> dataset_samples;  // dataset.num_samples
};

/// A numeric value of a record field: a number, or a non-finite number written as the string
/// "nan"/"inf"/"-inf" (any case, optional sign); nullopt for anything else.
std::optional<double> numeric_field(const nlohmann::json& value);

/// The row of one record (fields as written by the jsonl or csv_log readers).
LogRow row_from_record(const Record& record, std::int64_t index);

/// The known keys of the run's configuration (positive values only). Keys of the wrong type are ignored:
/// the config is optional extra evidence.
RunConfig config_from(const RunConfiguration& config);

/// Whether the rows hold one value per step, in step order, with no step missing (positions in the epoch
/// and periods count steps).
bool one_row_per_step(const std::vector<LogRow>& rows);

/// Layer names in network order: dotted names compared part by part, numeric parts as numbers
/// ("2.weight" < "10.weight"), which recovers PyTorch's named_parameters() order for numbered modules.
bool layer_name_less(const std::string& a, const std::string& b);

/// Every parameter any row logs a gradient norm for (`layer_grad_norms`), in network order.
std::vector<std::string> logged_layers(const std::vector<LogRow>& rows);

/// The name of the output layer's bias: the last module in network order that model code names a classifier
/// (head, fc, classifier, lm_head, output, logits, score, out) and that logs "<module>.bias", else the
/// module of the last logged parameter, which must log one; nullopt otherwise.
std::optional<std::string> output_layer_bias(const std::vector<LogRow>& rows);

}  // namespace cann_debug::plugins::training_detail
