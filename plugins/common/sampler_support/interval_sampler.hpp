// The loop every live sampler shares: take a sample every `interval`, stop after `samples` (0 = until
// stopped), stamp points with the host clock and the node name, emit one metric.batch/1 on port 0.
// A sampler derives from IntervalSampler and implements open() and sample().
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cann_debug/component.hpp"
#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::sampler_support {

/// The options `interval` (duration, default `default_interval`) and `samples` (int, default 0).
std::vector<OptionSpec> interval_options(const char* default_interval = "1s");

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
  virtual void sample(const CorrelationKey& key, std::vector<MetricPoint>& out) = 0;

  HostServices* host() const { return host_; }

 private:
  HostServices* host_;
  std::int64_t interval_ns_;
  std::int64_t limit_;
  std::int64_t taken_ = 0;
  std::string node_;
};

}  // namespace cann_debug::plugins::sampler_support
