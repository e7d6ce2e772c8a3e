#include "cann_debug/sampler/interval_sampler.hpp"

#include <unistd.h>

#include <climits>

namespace cann_debug::plugins::sampler_support {

std::vector<OptionSpec> interval_options(const char* default_interval) {
  return {
      {.name = "interval",
       .type = OptionType::kDuration,
       .description = "time between samples",
       .default_value = default_interval,
       .required = false,
       .min = 1e6,
       .max = {},
       .enum_values = {}},
      {.name = "samples",
       .type = OptionType::kInt,
       .description = "number of samples to take, then stop (0 = until stopped)",
       .default_value = 0,
       .required = false,
       .min = 0,
       .max = {},
       .enum_values = {}},
  };
}

Manifest sampler_manifest(std::string type, std::string description, bool frames,
                          const char* default_interval) {
  Manifest m;
  m.type = std::move(type);
  m.kind = ComponentKind::kSampler;
  m.description = std::move(description);
  m.outputs = {{"metrics", std::string(frames ? MetricFrame::type_id : MetricBatch::type_id),
                "one message per sample"}};
  m.options = interval_options(default_interval);
  return m;
}

std::string host_name() {
  char name[HOST_NAME_MAX + 1] = {};
  if (::gethostname(name, sizeof name - 1) != 0) return {};
  return name;
}

IntervalSampler::IntervalSampler(const CreateContext& ctx, const Config& config)
    : host_(&ctx.host),
      interval_ns_(config.duration_ns("interval")),
      limit_(config.integer("samples")),
      slow_(config.has("slow_interval") ? config.duration_ns("slow_interval") : 0, interval_ns_) {}

void IntervalSampler::start() {
  taken_ = 0;
  node_ = host_name();
  frame_.clear();
  slow_.restart();
  open();
}

PollResult IntervalSampler::poll(Emitter& out) {
  if (limit_ > 0 && taken_ >= limit_) return PollResult::kDone;
  CorrelationKey key;
  key.timestamp_ns = host_ ? host_->now_ns() : wall_clock_ns();
  key.node_id = node_;
  slow_due_ = slow_.due(key.timestamp_ns);
  if (frames_) {
    frame_.begin(key);
    sample_frame(frame_);
    ++taken_;
    if (!frame_.empty()) out.emit(0, key, frame_.finish());
    return limit_ > 0 && taken_ >= limit_ ? PollResult::kDone : PollResult::kIdle;
  }
  MetricBatch batch;
  sample(key, batch.points);
  ++taken_;
  if (!batch.points.empty()) out.emit(0, key, std::move(batch));
  return limit_ > 0 && taken_ >= limit_ ? PollResult::kDone : PollResult::kIdle;
}

MetricPoint IntervalSampler::point(const CorrelationKey& key, std::string name, std::string unit,
                                   double value, Labels labels) {
  MetricPoint p{std::move(name), std::move(unit), value, key, std::move(labels)};
  if (!key.node_id.empty()) p.labels["node"] = key.node_id;
  return p;
}

}  // namespace cann_debug::plugins::sampler_support
