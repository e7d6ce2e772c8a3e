// Gradient flow: how the loss and the gradients behaved, layer by layer, and where the anomalies sit.
#include <algorithm>
#include <cmath>
#include <string>

#include <fmt/format.h>

#include "details.hpp"
#include "graph_thresholds.hpp"

namespace cann_debug::plugins::scenario {

using nlohmann::json;

json features_json(const FeatureIndex& features, std::initializer_list<const char*> prefixes) {
  json out = json::object();
  for (const auto& f : features.all) {
    if (std::none_of(prefixes.begin(), prefixes.end(), [&](const char* p) { return f.name.starts_with(p); }))
      continue;
    std::string key = f.name;
    if (!f.labels.empty()) {
      key += "{";
      bool first = true;
      for (const auto& [k, v] : f.labels) {
        key += (first ? "" : ",") + k + "=" + v;
        first = false;
      }
      key += "}";
    }
    json item = {{"value", f.value}, {"unit", f.unit}};
    if (!f.labels.empty()) item["labels"] = f.labels;
    if (!f.evidence.empty()) item["evidence"] = f.evidence;
    out[key] = std::move(item);
  }
  return out;
}

namespace {

double value_of(const FeatureIndex& features, const char* name, double fallback) {
  const Feature* f = features.find(name);
  return f ? f->value : fallback;
}

/// "iterations 3-15" of the first evidence reference of `id`, or "".
std::string steps_of(const Feature* f, const char* id) {
  if (!f) return "";
  for (const auto& r : f->evidence)
    if (r.id == id && r.first_step >= 0)
      return r.first_step == r.last_step ? fmt::format("iteration {}", r.first_step)
                                         : fmt::format("iterations {}-{}", r.first_step, r.last_step);
  return "";
}

/// A repeat of the batches at the epoch lag no fresh shuffle gives: from where the graph in use reads
/// epoch_repeat=sharp and epoch_periodicity=periodic; these, the shipped graph's, when it has neither.
constexpr double kRepeatZ = 4.0;
constexpr double kRepeatAutocorr = 0.45;
/// An effect of the position in the epoch no fresh shuffle gives: from where the graph reads
/// epoch_position=strong.
constexpr double kPositionZ = 8.0;
/// A loss excursion beyond the run's noise: from where the graph reads loss_excursion=raised.
constexpr double kExcursionZ = 3.5;
/// A step up of the loss where the epoch starts again: from where the graph reads epoch_start_jump=jump.
constexpr double kStartJumpZ = 4.0;
/// A steady cycle in the batches' class mix: from where the graph reads batch_mix_cycle=cycling.
constexpr double kCycleZ = 3.5;
/// Neighbouring losses alike around their trend, which batches drawn afresh never are: from where the graph
/// reads batch_correlation=correlated.
constexpr double kNeighbourAutocorr = 0.15;
/// A loss without batch noise over a dataset larger than a batch: from where the graph reads
/// same_batch=repeated.
constexpr double kRepeatedBatch = 0.9;
/// Clipping that catches more than rare outliers: from where the graph reads clipping=frequent.
constexpr double kFrequentClipping = 0.1;
/// A clipped update shortened by a third or more (the median clipped norm 1.5 times the threshold).
constexpr double kMaterialCut = 1.5;
/// A rate far above the optimizer's customary one: from where the graph reads configured_lr=high.
constexpr double kHighRate = 10.0;

/// The optimizer named by the evidence of lr.peak_over_customary ("Adam" of the trace's
/// "Optimizer.step#Adam.step", "adam" of "config optimizer adam" or of a log's "optimizer adam" line).
std::string optimizer_named(const Feature& f) {
  constexpr std::string_view kStepPrefix = "Optimizer.step#", kStepSuffix = ".step", kNamed = "optimizer ";
  for (const auto& r : f.evidence) {
    if (r.kind == "operator" && r.id.starts_with(kStepPrefix) && r.id.ends_with(kStepSuffix))
      return r.id.substr(kStepPrefix.size(), r.id.size() - kStepPrefix.size() - kStepSuffix.size());
    if ((r.kind == "config" || r.kind == "line") && r.id.starts_with(kNamed))
      return r.id.substr(kNamed.size());
  }
  return "its optimizer";
}

/// Whether the graph reads the run's order as a permutation drawn once and reused (order_kind = reused at
/// 0.5 or more): batches of random samples that come back every epoch, which train as well as fresh ones.
bool reads_as_reused_order(const Posterior& posterior) {
  const auto kind = posterior.marginals.find("order_kind");
  if (kind == posterior.marginals.end()) return false;
  const auto reused = kind->second.find("reused");
  return reused != kind->second.end() && reused->second >= 0.5;
}

/// What the repetition of the order means, after the sentence that says it: a fault unless the graph reads
/// the order as a reused permutation of mixed data.
std::string what_the_repetition_means(bool reused, const char* fault_reading) {
  if (!reused) return fault_reading;
  return "the data loader does not reshuffle, but each batch is a random mix of the data (mixed classes, "
         "independent of its neighbours): a mixed order, stored and read the same way every epoch, which "
         "trains as well as a fresh shuffle";
}

/// What the run shows beside its verdict, one sentence each: the transients it recovered from, restarts,
/// and events that are not faults. They explain a healthy verdict rather than contradict it.
json observations(const FeatureIndex& features, const std::vector<GraphVariable>& graph, bool reused_order) {
  json out = json::array();
  auto add = [&](const std::string& kind, const std::string& text, const std::string& where) {
    json o = {{"kind", kind}, {"text", text}};
    if (!where.empty()) o["where"] = where;
    out.push_back(std::move(o));
  };
  if (const Feature* f = features.find("loss.warmup_spike_height"))
    add("warmup_spike",
        fmt::format("the loss rose {:.0f}% above its level during the warm-up and came back",
                    100.0 * f->value),
        steps_of(f, "loss.warmup_spike"));
  const double spikes = value_of(features, "loss.spike_count", 0.0);
  if (spikes > 0) {
    const Feature* count = features.find("loss.spike_count");
    add("loss_spike",
        fmt::format("{:.0f} recovered loss spike{} after the warm-up, the highest {:.0f}% above its level",
                    spikes, spikes == 1 ? "" : "s", 100.0 * value_of(features, "loss.spike_max_height", 0.0)),
        steps_of(count, "loss.spike"));
  }
  // A transient the spike test's height did not count, but which rose far beyond the run's own noise.
  const Feature* excursion = features.find("loss.excursion_zscore");
  if (spikes == 0 && excursion &&
      excursion->value >= state_threshold(graph, "loss_excursion", "raised", kExcursionZ))
    add("loss_excursion",
        fmt::format(
            "the loss rose {:.0f}% above its level at iteration {:.0f} for two iterations or more, {:.1f} "
            "sigmas of its step noise, and was back at iteration {:.0f}",
            100.0 * value_of(features, "loss.excursion_height", 0.0),
            value_of(features, "loss.excursion_start_step", 0.0), excursion->value,
            value_of(features, "loss.excursion_end_step", 0.0)),
        steps_of(excursion, "loss.excursion"));
  if (const double r = value_of(features, "log.restarts", 0.0); r > 0)
    add("restart", fmt::format("the job restarted from a checkpoint {:.0f} time{}", r, r == 1 ? "" : "s"),
        "");
  const double hw =
      value_of(features, "log.hardware_events", 0.0) - value_of(features, "log.hardware_errors", 0.0);
  if (hw > 0)
    add("hardware_warning",
        fmt::format("{:.0f} hardware warning{} (corrected or informational) in the logs", hw,
                    hw == 1 ? "" : "s"),
        "");
  // The same batches one epoch apart: a loader that does not reshuffle. Only a fault when the stored order
  // makes batches unrepresentative (sorted, class blocks); a mixed order reused every epoch trains as well.
  // The repeat test is computed from the epoch-lag correlation, so it never comes without it.
  const Feature* lag = features.find("loss.epoch_lag_residual_autocorr");
  const Feature* repeat = features.find("data.epoch_repeat_zscore");
  const double repeat_autocorr = state_threshold(graph, "epoch_periodicity", "periodic", kRepeatAutocorr);
  const double repeat_z = state_threshold(graph, "epoch_repeat", "sharp", kRepeatZ);
  const bool repeats = lag && (lag->value >= repeat_autocorr || (repeat && repeat->value >= repeat_z));
  if (repeats)
    add("epoch_repeat",
        fmt::format(
            "the same batches come back every epoch (loss one epoch apart correlates at {:.2f}{}): {}",
            lag->value, repeat ? fmt::format(", {:.1f} sd above nearby lags", repeat->value) : "",
            what_the_repetition_means(reused_order, "the data loader does not reshuffle")),
        steps_of(lag, "loss.epoch_period"));
  // The same kind of batch at the same place of every epoch, where the batches themselves differ (a stored
  // order behind a shuffle buffer): said when the repeat above is not.
  const Feature* position = features.find("data.epoch_position_zscore");
  const bool positioned =
      position && position->value >= state_threshold(graph, "epoch_position", "strong", kPositionZ);
  if (!repeats && positioned)
    add("epoch_position",
        fmt::format(
            "the loss depends on where in the epoch a step falls ({:.1f} sd, an analysis of variance by "
            "position): {}",
            position->value,
            what_the_repetition_means(reused_order,
                                      "the data are read in an order that is the same every epoch")),
        steps_of(position, "loss.epoch_period"));
  // The loss stepping up where the order starts again: said when neither of the above is (they need two
  // or three epochs; this one epoch start).
  const Feature* jump = features.find("loss.epoch_start_jump_zscore");
  const bool jumped = !repeats && !positioned && jump &&
                      jump->value >= state_threshold(graph, "epoch_start_jump", "jump", kStartJumpZ);
  if (jumped)
    add("epoch_start_jump",
        fmt::format("the loss steps up where each epoch starts again ({:.1f} sd above the step at other "
                    "positions of the epoch): the data are read in an order that is the same every epoch, "
                    "and the model has drifted away from its start",
                    jump->value),
        steps_of(jump, "loss.epoch_start"));
  // The class mix of the batches swinging back and forth in a steady cycle (class blocks behind a shuffle
  // buffer smaller than a block): said when none of the epoch observations is.
  const Feature* cycle = features.find("grad.output_bias_cycle_zscore");
  const bool cycled = !repeats && !positioned && !jumped && cycle &&
                      cycle->value >= state_threshold(graph, "batch_mix_cycle", "cycling", kCycleZ);
  if (cycled) {
    const Feature* period = features.find("grad.output_bias_cycle_period");
    add("batch_mix_cycle",
        fmt::format("the output layer's bias gradient, which the batch's class mix sets, swings in a steady "
                    "cycle{} ({:.1f} sd above a flat spectrum), where batches drawn afresh all hold the same "
                    "mix: the data are read in blocks of a few classes, behind a shuffle buffer too small to "
                    "mix them",
                    period ? fmt::format(" of {:.1f} steps", period->value) : "", cycle->value),
        steps_of(cycle, "grad.layer_norm"));
  }
  // Neighbouring batches alike, where nothing ties the order to the epoch (shards of one class read with a
  // shard-level shuffle, a single pass over a poorly mixed stream): said when none of the epoch
  // observations is, whatever the verdict, with the other reading a correlation of neighbours has (a rate
  // that swings the loss back and forth).
  if (const Feature* f = features.find("loss.residual_lag1_autocorr");
      !repeats && !positioned && !jumped && !cycled && f &&
      f->value >= state_threshold(graph, "batch_correlation", "correlated", kNeighbourAutocorr)) {
    const Feature* grad = features.find("grad_norm.residual_lag1_autocorr");
    add("neighbouring_batches",
        fmt::format(
            "neighbouring steps' losses correlate at {:.2f} around their trend{}, where batches drawn "
            "afresh are independent: consecutive batches are alike (data read in an order: sorted, in "
            "blocks, shard by shard) or the updates swing the loss back and forth",
            f->value, grad ? fmt::format(", their gradient norms at {:.2f}", grad->value) : ""),
        steps_of(f, "loss"));
  }
  // Every step on the same batch: said whatever the verdict, since a run can still learn its one batch.
  if (const Feature* f = features.find("data.repeated_batch_share");
      f && f->value >= state_threshold(graph, "same_batch", "repeated", kRepeatedBatch))
    add("same_batch",
        fmt::format("the loss follows its trend exactly at {:.0f}% of the steps, without the noise different "
                    "batches give, though the dataset holds more samples than a batch: every step trains on "
                    "the same batch",
                    100.0 * f->value),
        steps_of(f, "loss"));
  // A rate far above the customary one, said whatever the verdict: a run that trained well at it is
  // healthy, and the user still wants to know that the rate is unusual.
  if (const Feature* f = features.find("lr.peak_over_customary");
      f && f->value >= state_threshold(graph, "configured_lr", "high", kHighRate))
    add("high_learning_rate",
        fmt::format("the learning rate peaked at {:.3g}, {:.0f} times the rate {} is customarily run at",
                    value_of(features, "lr.peak", f->value * value_of(features, "lr.customary", 0.0)),
                    f->value, optimizer_named(*f)),
        steps_of(f, "lr"));
  // Clipping that shortens a tenth of the updates or more, by a third or more (or that bit from the first
  // steps by as much), said whatever the verdict: under an adaptive optimizer a threshold far below the
  // gradient norm still trains, and the user wants to know that the threshold, not the rate, set the step
  // size wherever it bit. A threshold at the usual norm catches many steps and trims them by a few percent
  // (healthy runs of the workload matrix clipped at the first batch's norm: 1.1-1.3x); that is not said.
  const Feature* clipped = features.find("grad_norm.clip_fraction");
  const Feature* cut = features.find("grad_norm.log10_clipped_over_clip");
  const Feature* early = features.find("grad_norm.log10_early_over_clip");
  const auto material = [](const Feature* f) { return f && f->value >= std::log10(kMaterialCut); };
  if (clipped && clipped->value >= state_threshold(graph, "clipping", "frequent", kFrequentClipping) &&
      (material(cut) || material(early))) {
    std::string depth;
    if (cut)
      depth =
          fmt::format(", the clipped updates shortened {:.2g} times (median)", std::pow(10.0, cut->value));
    if (early && early->value > 0.0)
      depth +=
          fmt::format(", the first steps' norms {:.2g} times the threshold", std::pow(10.0, early->value));
    add("frequent_clipping",
        fmt::format("the gradient norm was above the clipping threshold at {:.0f}% of the steps{}: there the "
                    "threshold, not the learning rate, set the step size",
                    100.0 * clipped->value, depth),
        steps_of(clipped, "grad_norm.clipped"));
  }
  if (const double s = value_of(features, "log.skipped_iteration_fraction", 0.0); s > 0)
    add("overflow_skips", fmt::format("{:.2g}% of the iterations were skipped on overflow", 100.0 * s), "");
  return out;
}

}  // namespace

json training_details(const FeatureIndex& features, const Posterior& posterior) {
  json d;
  if (json o = observations(features, posterior.variables, reads_as_reused_order(posterior)); !o.empty())
    d["observations"] = std::move(o);
  d["throughput"] = features_json(features, {"step_time.", "loss_scale."});
  d["log_events"] = features_json(features, {"log."});
  d["loss"] = features_json(features, {"loss."});
  d["gradients"] = features_json(features, {"grad_norm.", "grad."});
  d["learning_rate"] = features_json(features, {"lr."});
  d["data"] = features_json(features, {"data."});
  // Per-layer gradient norms (features with a `layer` label), from the input side to the output side.
  json layers = json::array();
  for (const auto& f : features.all)
    if (auto it = f.labels.find("layer"); it != f.labels.end())
      layers.push_back({{"layer", it->second}, {"feature", f.name}, {"value", f.value}, {"unit", f.unit}});
  if (!layers.empty()) d["layers"] = layers;
  // Where the anomalies sit: every step reference of the loss and gradient features.
  json anomalies = json::array();
  for (const auto* f : features.with_prefix("loss."))
    for (const auto& r : f->evidence)
      if (r.first_step >= 0) anomalies.push_back({{"feature", f->name}, {"ref", r}});
  for (const auto* f : features.with_prefix("grad_norm."))
    for (const auto& r : f->evidence)
      if (r.first_step >= 0) anomalies.push_back({{"feature", f->name}, {"ref", r}});
  d["anomalies"] = anomalies;
  return d;
}

}  // namespace cann_debug::plugins::scenario
