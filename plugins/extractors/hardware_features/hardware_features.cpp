#include "hardware_features.hpp"

#include <algorithm>
#include <vector>

#include "cann_debug/messages.hpp"
#include "conditions.hpp"
#include "hardware_series.hpp"
#include "input_wait.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;

Manifest make_manifest() {
  Manifest m;
  m.type = "hardware_features";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Hardware evidence: throttled device clocks, memory pressure, network congestion, a starved host, "
      "DataLoader stalls.";
  m.inputs = {{"metrics",
               {std::string(MetricBatch::type_id)},
               false,
               "sampled series (a recording, or live samplers)"},
              {"records",
               {std::string(RecordBatch::type_id)},
               false,
               "the run's log rows (steps, requests) to name what a window overlapped"},
              {"events",
               {std::string(EventBatch::type_id)},
               false,
               "profiler traces (chrome_trace): steps the device sat idle waiting for the DataLoader"}};
  m.outputs = {
      {"features", std::string(FeatureSet::type_id), "the hardware features, once at end of stream"}};
  m.options = {
      {.name = "min_samples",
       .type = OptionType::kInt,
       .description = "a condition counts when it holds for at least this many samples in a row",
       .default_value = 3,
       .min = 1,
       .max = 1000000},
      {.name = "min_window",
       .type = OptionType::kDuration,
       .description = "... and for at least this long",
       .default_value = "200ms"},
      {.name = "clock_low",
       .type = OptionType::kDouble,
       .description = "a busy device clocked below this share of its rated (or usual) clock is throttled",
       .default_value = 0.85,
       .min = 0.0,
       .max = 1.0},
      {.name = "memory_full",
       .type = OptionType::kDouble,
       .description = "device or host memory in use at or above this share of capacity is memory pressure",
       .default_value = 0.95,
       .min = 0.0,
       .max = 1.0},
      {.name = "congestion",
       .type = OptionType::kDouble,
       .description =
           "congestion signals (PFC/pause frames, CNPs, ECN marks, retransmissions) per packet at or "
           "above this are congestion",
       .default_value = 0.01,
       .min = 0.0,
       .max = 1.0},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Hardware evidence of a run folder written by `cann-debug collect -- COMMAND`.\n"
      "recording/hw: { path: \"${input}/recording.cdr\", optional: true }\n"
      "hardware_features/hw: { min_samples: 3, min_window: 200ms }\n"
      "# links: recording/hw.metrics -> hardware_features/hw.metrics\n"
      "#        jsonl/steps.records  -> hardware_features/hw.records\n"
      "#        chrome_trace/trace.events -> hardware_features/hw.events\n";
  return m;
}

class HardwareFeatures final : public Component {
 public:
  HardwareFeatures(const CreateContext&, const Config& config) {
    rule_.min_samples = static_cast<std::size_t>(config.integer("min_samples"));
    rule_.min_duration = config.duration_ns("min_window");
    limits_.clock_low = config.number("clock_low");
    limits_.memory_full = config.number("memory_full");
    limits_.congestion = config.number("congestion");
  }

  void process(const Envelope& message, std::size_t port, Emitter&) override {
    if (port == 0)
      store_.add(message.as<MetricBatch>());
    else if (port == 1)
      timeline_.add(message.as<RecordBatch>());
    else
      input_.add(message.as<EventBatch>());
  }

  void flush(Emitter& out) override {
    // Nothing sampled and no trace: no hardware features (a diagnosis observes them as unmeasured).
    if (store_.empty() && input_.empty()) return;
    FeatureSet set;
    set.scope = "run";
    if (!store_.empty()) {
      store_.finish();
      timeline_.finish();
      const hardware::Context ctx{store_, timeline_, rule_, limits_};
      hardware::device_clock(ctx, set.features);
      hardware::memory_pressure(ctx, set.features);
      hardware::network_congestion(ctx, set.features);
      hardware::host_cpu(ctx, set.features);
    }
    input_.features(set.features);
    // Whether anything measured the host feeding the device: a starved host and an exposed DataLoader
    // both speak for host_input_bound, and the cause is ruled out only when neither was measured.
    for (const char* name : {"hw.host.cpu_starved_share", "hw.input.data_loader_exposed_share"}) {
      auto it = std::find_if(set.features.begin(), set.features.end(),
                             [&](const Feature& f) { return f.name == name; });
      if (it == set.features.end()) continue;
      Feature measured;
      measured.name = "hw.host.input_measured";
      measured.value = 1.0;
      measured.unit = "flag";
      measured.evidence = it->evidence;
      set.features.push_back(std::move(measured));
      break;
    }
    if (set.features.empty()) return;
    out.emit(0, CorrelationKey{}, std::move(set));
  }

 private:
  hardware::SeriesStore store_;
  hardware::RunTimeline timeline_;
  hardware::StretchRule rule_;
  hardware::Thresholds limits_;
  hardware::InputWaitTimeline input_;
};

}  // namespace

const ComponentFactory& hardware_features_factory() {
  static const SimpleFactory<HardwareFeatures> f(make_manifest());
  return f;
}

}  // namespace cann_debug::plugins
