// training_features extractor: collects the rows of a training log (and optionally config.json), and at
// end of stream emits one feature.set/1 (scope "run") describing the run.
#include "training_features.hpp"

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "batch_class_mix.hpp"
#include "batch_mix_cycle.hpp"
#include "cann_debug/messages.hpp"
#include "feature_list.hpp"
#include "gradient_features.hpp"
#include "log_events.hpp"
#include "loss_excursion.hpp"
#include "loss_features.hpp"
#include "loss_objective.hpp"
#include "loss_shape_features.hpp"
#include "loss_spikes.hpp"
#include "optimizer_rate.hpp"
#include "repeated_batch.hpp"
#include "throughput_features.hpp"
#include "trace_batch.hpp"
#include "training_log.hpp"

namespace cann_debug::plugins {
namespace {

using namespace training_detail;

constexpr std::size_t kRecordsPort = 0;
constexpr std::size_t kMetricsPort = 1;
constexpr std::size_t kEventsPort = 2;
constexpr std::size_t kConfigPort = 3;

Manifest make_manifest() {
  Manifest m;
  m.type = "training_features";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Features of one training run: loss, gradient norm, clipping, layers, learning rate.";
  m.inputs = {
      {"records",
       {std::string(RecordBatch::type_id)},
       false,
       "rows of the training log (one per step or epoch)"},
      {"metrics", {std::string(MetricBatch::type_id)}, false, "host metrics (accepted; not used yet)"},
      {"events",
       {std::string(EventBatch::type_id)},
       false,
       "profiler trace events: the batch size the model's first layer saw (Input Dims), the optimizer "
       "class (Optimizer.step#<Class>.step), the loss operator (aten::cross_entropy_loss, aten::mse_loss, "
       "...)"},
      {"config",
       {std::string(RunConfiguration::type_id)},
       false,
       "the run's configuration (run_config reader)"},
  };
  m.outputs = {{"features", std::string(FeatureSet::type_id), "one feature set per run, at end of stream"}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "training_features/train: {}\n"
      "# links: jsonl/log.records -> training_features/train.records\n"
      "#        run_config/config.config -> training_features/train.config\n";
  return m;
}

class TrainingFeatures final : public Component {
 public:
  TrainingFeatures(const CreateContext& /*ctx*/, const Config& /*config*/) {}

  void process(const Envelope& message, std::size_t port, Emitter& /*out*/) override {
    if (port == kRecordsPort && message.is<RecordBatch>()) {
      for (const Record& r : message.as<RecordBatch>().records) {
        if (r.key.has_rank() && r.key.rank != 0) continue;
        if (auto o = optimizer_of_log_arguments(r)) {
          log_optimizer_ = std::move(o);
          continue;
        }
        if (auto e = event_from_record(r)) {
          events_.push_back(std::move(*e));
          continue;
        }
        if (!is_step_record(r)) continue;  // validation, summary and per-rank rows are not steps
        rows_.push_back(row_from_record(r, next_index_++));
      }
    } else if (port == kConfigPort && message.is<RunConfiguration>()) {
      config_ = config_from(message.as<RunConfiguration>());
      config_optimizer_ = optimizer_of_config(message.as<RunConfiguration>());
      config_objective_ = objective_of_config(message.as<RunConfiguration>());
    } else if (port == kEventsPort && message.is<EventBatch>()) {
      trace_batch_.add(message.as<EventBatch>());
      trace_optimizer_.add(message.as<EventBatch>());
      trace_objective_.add(message.as<EventBatch>());
    } else if (port == kMetricsPort && message.is<MetricBatch>()) {
      // Accepted so that pipelines can wire every reader of a case; no feature reads them yet.
    } else {
      throw std::runtime_error(fmt::format("training_features: unexpected '{}' message on input port {}",
                                           message.type_id(), port));
    }
  }

  void flush(Emitter& out) override {
    rows_ = latest_segment_rows(std::move(rows_));
    FeatureList features;
    std::optional<std::int64_t> steps_per_epoch = steps_per_epoch_from_rows(rows_);
    if (steps_per_epoch) {
      if (!rows_.empty())
        features.add("data.steps_per_epoch", static_cast<double>(*steps_per_epoch), "steps",
                     {rows_ref(rows_, 0, rows_.size() - 1, "steps", "epoch")});
    } else {
      steps_per_epoch = config_.steps_per_epoch;
    }
    // The batch size: the config's, else the global batch a large-model log prints, else the leading
    // dimension of the first layer's input in the profiler trace (docs/features-training.md, "Data
    // features").
    const std::optional<TraceBatch> traced = trace_batch_.result();
    if (traced) features.add("data.trace_batch_size", traced->samples, "samples", {traced->first_layer});
    std::optional<std::int64_t> batch_size = config_.batch_size;
    if (config_.batch_size) {
      features.add("data.batch_size", static_cast<double>(*config_.batch_size), "samples", {});
    } else {
      // Without a config, the global batch size a large-model log prints on every iteration line.
      std::optional<std::size_t> at;
      for (std::size_t i = 0; i < rows_.size(); ++i)
        if (rows_[i].global_batch_size &&
            (!at || *rows_[i].global_batch_size > *rows_[*at].global_batch_size))
          at = i;
      if (at) {
        features.add("data.batch_size", *rows_[*at].global_batch_size, "samples",
                     {row_ref(rows_, *at, "global_batch_size")});
      } else if (traced) {
        features.add("data.batch_size", traced->samples, "samples", {traced->first_layer});
        batch_size = static_cast<std::int64_t>(traced->samples);
      }
    }
    // The curve features describe the run outside the spikes it recovered from, and outside its largest
    // excursion where that is unlikely for its noise; both have their own features. A stored order's
    // step-ups at the epoch starts are neither: they stay in the curve (its correlations are the order's
    // signature).
    const EpochStartStepUps epoch_step_ups(rows_, steps_per_epoch);  // measured once, read by both
    const std::vector<LossSpike> spikes =
        spikes_off_epoch_starts(rows_, find_loss_spikes(rows_), epoch_step_ups);
    const ExcursionSearch excursions = search_loss_excursions(rows_, epoch_step_ups);
    const std::vector<LogRow> curve =
        rows_outside_recovered_spikes(rows_, spikes_and_excursion(spikes, excursions.largest));
    add_loss_features(curve, steps_per_epoch, batch_size, features);
    add_loss_shape_features(curve, steps_per_epoch, features);
    // The output layer's bias, read by three features: found once over the whole log.
    const std::optional<std::string> output_bias = output_layer_bias(rows_);
    add_epoch_position_features(rows_, steps_per_epoch, output_bias, features);
    add_epoch_start_jump_feature(rows_, steps_per_epoch, features);
    add_repeated_batch_features(rows_, config_, features);
    add_gradient_features(curve, config_, features);
    add_batch_class_mix_feature(curve, batch_size, output_bias, features);
    add_batch_mix_cycle_features(rows_, steps_per_epoch, output_bias, features);
    // The optimizer the trace saw run wins over the one the config names, and that over the log's.
    std::optional<NamedOptimizer> optimizer = trace_optimizer_.result();
    if (!optimizer) optimizer = config_optimizer_ ? config_optimizer_ : log_optimizer_;
    add_rate_over_customary(rows_, config_, optimizer, features);
    // The loss operator the trace saw run wins over the loss the config names.
    const std::optional<NamedObjective> traced_objective = trace_objective_.result();
    add_objective_feature(traced_objective ? traced_objective : config_objective_, features);
    add_loss_spike_features(rows_, spikes, features);
    add_loss_excursion_features(rows_, excursions, features);
    add_loss_blowup_feature(rows_, features);
    add_throughput_features(rows_, features);
    place_events_on_steps(events_, rows_);
    add_loss_scale_features(rows_, events_, features);
    add_log_event_features(events_, rows_, features);
    out.emit(0, CorrelationKey{}, FeatureSet{"run", features.take()});
  }

 private:
  std::vector<LogRow> rows_;
  std::vector<LogEvent> events_;
  std::int64_t next_index_ = 0;
  RunConfig config_;
  TraceBatchScanner trace_batch_;
  TraceOptimizerScanner trace_optimizer_;
  TraceObjectiveScanner trace_objective_;
  std::optional<NamedObjective> config_objective_;
  std::optional<NamedOptimizer> config_optimizer_;
  std::optional<NamedOptimizer> log_optimizer_;  // a console log's argument dump
};

}  // namespace

const ComponentFactory& training_features_factory() {
  static const SimpleFactory<TrainingFeatures> factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
