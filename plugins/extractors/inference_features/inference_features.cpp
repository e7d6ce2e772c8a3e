// inference_features extractor: one feature set per serving run, at end of stream. See
// docs/features-inference.md for every feature, its unit and what it means.
#include "inference_features.hpp"

#include <initializer_list>
#include <optional>
#include <stdexcept>
#include <string_view>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "config_facts.hpp"
#include "device_tasks.hpp"
#include "feature_builder.hpp"
#include "host_features.hpp"
#include "request_features.hpp"
#include "request_log.hpp"
#include "served_batches.hpp"
#include "trace_features.hpp"

namespace cann_debug::plugins {
namespace {

using namespace inference;

Manifest make_manifest() {
  Manifest m;
  m.type = "inference_features";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Features of one model-serving run: latency, queueing, load, batch time split, operators, CPU.";
  m.inputs = {
      {"records", {std::string(RecordBatch::type_id)}, false, "request log (metrics.jsonl via jsonl)"},
      {"metrics", {std::string(MetricBatch::type_id)}, false, "host metrics (host_metrics or procfs)"},
      {"events", {std::string(EventBatch::type_id)}, false, "serving trace (chrome_trace)"},
      {"config",
       {std::string(RunConfiguration::type_id)},
       false,
       "the run's configuration (run_config reader)"},
  };
  m.outputs = {{"features", std::string(FeatureSet::type_id), "one feature set per run, at end of stream"}};
  m.options = {
      {.name = "spike_factor",
       .type = OptionType::kDouble,
       .description = "a latency spike is a request slower than spike_factor x the median latency",
       .default_value = 5.0,
       .required = false,
       .min = 1.0,
       .max = 1000.0,
       .enum_values = {}},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "inference_features/main:\n"
      "  spike_factor: 5     # spike = latency above 5 x median\n";
  return m;
}

// The evidence of the named features already in `set`, concatenated (for a feature derived from them).
std::vector<EvidenceRef> evidence_of(const FeatureSet& set, std::initializer_list<std::string_view> names) {
  std::vector<EvidenceRef> refs;
  for (const auto name : names)
    for (const Feature& f : set.features)
      if (f.name == name) refs.insert(refs.end(), f.evidence.begin(), f.evidence.end());
  return refs;
}

class InferenceFeatures final : public Component {
 public:
  InferenceFeatures(const CreateContext& /*ctx*/, const Config& config) {
    options_.spike_factor = config.number("spike_factor");
  }

  void process(const Envelope& message, std::size_t port, Emitter& /*out*/) override {
    if (message.is<RecordBatch>()) {
      const auto& batch = message.as<RecordBatch>();
      if (batch.schema == kKernelDetailsSchema)
        device_.add(batch);
      else
        read_requests(batch, requests_);
    } else if (message.is<MetricBatch>()) {
      host_.add(message.as<MetricBatch>());
    } else if (message.is<EventBatch>()) {
      collect_slices(message.as<EventBatch>(), slices_);
    } else if (message.is<RunConfiguration>()) {
      config_ = read_config(message.as<RunConfiguration>());
    } else {
      throw std::runtime_error(
          fmt::format("inference_features: cannot read a '{}' message (port {})", message.type_id(), port));
    }
  }

  void flush(Emitter& out) override {
    FeatureSet set{"run", {}};
    const auto batches = served_batches(std::move(slices_));
    std::vector<std::int64_t> profiled;
    for (const auto& b : batches) profiled.push_back(b.index);
    const LoadSummary load = request_features(std::move(requests_), options_, profiled, set.features);
    const double service_ms = trace_features(batches, set.features);
    // Offered load against capacity: arrivals per second x seconds of service per request. Above 1 the
    // server cannot keep up at the batch sizes it used, and the queue grows.
    FeatureBuilder(set.features)
        .add("load.offered_utilization", load.offered_rps * service_ms / 1000.0 / load.mean_batch_size,
             "ratio", evidence_of(set, {"load.offered_rps", "request.service_ms"}));

    std::optional<double> cores;
    if (host_.cpus_seen() > 0)
      cores = static_cast<double>(host_.cpus_seen());
    else if (config_ && config_->cpu_count)
      cores = config_->cpu_count;
    host_.features(cores, set.features);
    device_.features(set.features);
    if (config_) config_features(*config_, set.features);
    out.emit(0, CorrelationKey{}, std::move(set));
  }

 private:
  RequestFeatureOptions options_;
  std::vector<Request> requests_;
  std::vector<Slice> slices_;
  HostSamples host_;
  DeviceTasks device_;
  std::optional<ConfigFacts> config_;
};

}  // namespace

const ComponentFactory& inference_features_factory() {
  static const SimpleFactory<InferenceFeatures> factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
