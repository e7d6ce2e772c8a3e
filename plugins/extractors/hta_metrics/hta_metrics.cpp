// hta_metrics extractor: keeps compact rows per rank, computes HTA's analyses at flush (docs/traces.md).
#include "hta_metrics.hpp"

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "hta_analyses.hpp"
#include "hta_features.hpp"
#include "rank_trace.hpp"

namespace cann_debug::plugins {
namespace {

using namespace hta;

Manifest make_manifest() {
  Manifest m;
  m.type = "hta_metrics";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Holistic Trace Analysis (HTA) metrics of Kineto trace events, per rank, with HTA's formulas.";
  m.inputs = {
      {"events", {std::string(EventBatch::type_id)}, true, "Kineto trace events of one or more ranks"}};
  m.outputs = {{"features", std::string(FeatureSet::type_id), "one set per rank, then one 'job' set"}};
  m.options = {
      {.name = "consecutive_kernel_delay_us",
       .type = OptionType::kDouble,
       .description = "idle gaps shorter than this between kernels of a stream are kernel_wait (HTA: 30)",
       .default_value = 30.0,
       .min = 0},
      {.name = "runtime_cutoff_us",
       .type = OptionType::kDouble,
       .description = "launch calls longer than this are runtime outliers (HTA: 50)",
       .default_value = 50.0,
       .min = 0},
      {.name = "launch_delay_cutoff_us",
       .type = OptionType::kDouble,
       .description = "launch delays longer than this are outliers (HTA: 100)",
       .default_value = 100.0,
       .min = 0},
      {.name = "include_last_profiler_step",
       .type = OptionType::kBool,
       .description = "keep the last ProfilerStep (HTA's default drops it, which empties 1-step traces)",
       .default_value = true},
      {.name = "num_candidates",
       .type = OptionType::kInt,
       .description = "late-starting ranks counted per iteration, and stragglers reported (HTA: 2)",
       .default_value = 2,
       .min = 1,
       .max = 1e6},
      {.name = "min_normalized_duration",
       .type = OptionType::kDouble,
       .description =
           "shortest communication kernel considered, as a fraction of the mean iteration (HTA: 0.01)",
       .default_value = 0.01,
       .min = 0,
       .max = 1},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# HTA metrics of a torch.profiler trace.\n"
      "hta_metrics/main:\n"
      "  include_last_profiler_step: true   # HTA drops the last step; we keep it by default\n"
      "  consecutive_kernel_delay_us: 30\n";
  return m;
}

class HtaMetrics final : public Component {
 public:
  HtaMetrics(const CreateContext& ctx, const Config& config) : host_(ctx.host) {
    options_.consecutive_kernel_delay_us = config.number("consecutive_kernel_delay_us");
    options_.runtime_cutoff_us = config.number("runtime_cutoff_us");
    options_.launch_delay_cutoff_us = config.number("launch_delay_cutoff_us");
    options_.include_last_profiler_step = config.boolean("include_last_profiler_step");
    options_.num_candidates = static_cast<int>(config.integer("num_candidates"));
    options_.min_normalized_duration = config.number("min_normalized_duration");
  }

  void process(const Envelope& message, std::size_t /*port*/, Emitter& /*out*/) override {
    for (const Event& e : message.as<EventBatch>().events) store_.add(e);
  }

  void flush(Emitter& out) override {
    if (store_.empty()) return;
    FrameOptions fo;
    fo.include_last_profiler_step = options_.include_last_profiler_step;
    fo.filter_steps = store_.profiler_step_names() >= 2;
    std::vector<Frame> frames;
    for (RankTrace* t : store_.ranks()) frames.push_back(build_frame(*t, store_.names(), fo));
    for (const Frame& f : frames) {
      if (f.gpu.empty()) host_.logger().info("rank {}: no GPU kernels, no temporal breakdown", f.rank);
      FeatureSet set = rank_features(f, options_);
      for (const auto& ft : set.features)
        if (ft.name == "non_compute_time_clamped")
          host_.logger().warn("rank {}: non_compute_time was {} us (negative; HTA asserts), clamped to 0",
                              f.rank, ft.value);
      CorrelationKey key;
      key.rank = f.rank;
      out.emit(0, key, std::move(set));
    }
    if (frames.size() >= 2) {
      const StragglerResult r = potential_stragglers(frames, store_.names(), options_.num_candidates,
                                                     options_.min_normalized_duration);
      if (r.computed)
        out.emit(0, CorrelationKey{}, straggler_features(r, frames));
      else
        host_.logger().info("no straggler analysis: {}", r.reason);
    }
    store_ = TraceStore{};
  }

 private:
  HostServices& host_;
  MetricsOptions options_;
  TraceStore store_;
};

}  // namespace

const ComponentFactory& hta_metrics_factory() {
  static const SimpleFactory<HtaMetrics> factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
