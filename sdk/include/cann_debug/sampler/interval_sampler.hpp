// The loop every live sampler shares: take a sample every `interval`, stop after `samples` (0 = until
// stopped), stamp points with the host clock and the node name, emit one message on port 0: a
// metric.frame/1 (sample_frame(), after emit_frames() in the constructor) or a metric.batch/1 (sample()).
// A sampler derives from IntervalSampler and implements open() and one of the two.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cann_debug/component.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/frame_builder.hpp"
#include "cann_debug/sampler/slow_readings.hpp"

namespace cann_debug::plugins::sampler_support {

/// The options `interval` (duration, default `default_interval`) and `samples` (int, default 0).
std::vector<OptionSpec> interval_options(const char* default_interval = "1s");

/// The manifest of a sampler: kind sampler, output port "metrics" (metric.batch/1, or metric.frame/1 with
/// `frames`, for a sampler that calls emit_frames()), and interval_options(default_interval). Add the
/// sampler's own options to it.
Manifest sampler_manifest(std::string type, std::string description, bool frames = false,
                          const char* default_interval = "1s");

/// This machine's host name ("" when unknown).
std::string host_name();

class IntervalSampler : public Component {
 public:
  IntervalSampler(const CreateContext& ctx, const Config& config);

  void start() override;
  PollResult poll(Emitter& out) override;
  std::int64_t idle_interval_ns() const override { return interval_ns_; }

  /// A point with `key`, the node label and `labels`.
  static MetricPoint point(const CorrelationKey& key, std::string name, std::string unit, double value,
                           Labels labels = {});

 protected:
  /// Called by start(): find the devices, open libraries. Throw (with the reason) when nothing can be read.
  virtual void open() = 0;
  /// Appends this sample's points; `key` has the timestamp and node to copy into each point.
  virtual void sample(const CorrelationKey& /*key*/, std::vector<MetricPoint>& /*out*/) {}
  /// Puts this sample's readings into `frame` (begun with the sample's time and node).
  virtual void sample_frame(FrameBuilder& /*frame*/) {}
  /// Emit metric.frame/1 from sample_frame() (the manifest's port 0 must say so) instead of batches.
  void emit_frames() { frames_ = true; }

  HostServices* host() const { return host_; }
  /// Whether this sample also takes the readings that change slowly (the sampler's `slow_interval`
  /// option, SlowReadings); always true for a sampler without that option.
  bool slow_readings_due() const { return slow_due_; }

 private:
  HostServices* host_;
  std::int64_t interval_ns_;
  std::int64_t limit_;
  std::int64_t taken_ = 0;
  std::string node_;
  bool frames_ = false;
  FrameBuilder frame_;
  SlowReadings slow_;
  bool slow_due_ = true;
};

}  // namespace cann_debug::plugins::sampler_support
