// Test support for plugin authors: run a component without the host or a graph.
//
//   cann_debug::testing::Harness h(factory, {{"path", "x.jsonl"}});
//   h.run_source();                       // start, poll until done, flush, stop
//   auto batches = h.outputs_of<cann_debug::RecordBatch>(0);
#pragma once

#include <mutex>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "cann_debug/component.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/options.hpp"

namespace cann_debug::testing {

class CapturingLogger : public Logger {
 public:
  void log(LogLevel level, std::string_view message) override {
    std::lock_guard lock(mu_);
    lines.emplace_back(level, std::string(message));
  }
  bool enabled(LogLevel) const override { return true; }
  std::vector<std::pair<LogLevel, std::string>> lines;

 private:
  std::mutex mu_;
};

class FakeHost : public HostServices {
 public:
  Logger& logger() override { return log; }
  TimestampNs now_ns() const override { return clock_ns ? clock_ns : wall_clock_ns(); }
  bool cancelled() const override { return cancel; }
  CapturingLogger log;
  TimestampNs clock_ns = 0;  // 0 = real wall clock
  bool cancel = false;
};

class CapturingEmitter : public Emitter {
 public:
  void emit(std::size_t port, Envelope envelope) override {
    std::lock_guard lock(mu_);
    emitted.emplace_back(port, std::move(envelope));
  }
  std::vector<std::pair<std::size_t, Envelope>> emitted;

 private:
  std::mutex mu_;
};

/// Resolves options against the factory's manifest (throwing on any issue), creates the component.
class Harness {
 public:
  Harness(const ComponentFactory& factory, const nlohmann::json& options, std::string id = "")
      : factory_(factory) {
    std::vector<OptionIssue> issues;
    config_ = resolve_config(factory.manifest().options, options, issues);
    if (!issues.empty()) throw std::invalid_argument(issues.front().message);
    for (const auto& p : factory.validate(config_))
      throw std::invalid_argument(p.option.empty() ? p.message : p.option + ": " + p.message);
    CreateContext ctx{id.empty() ? factory.manifest().type + "/test" : id, host};
    component_ = factory.create(ctx, config_);
  }
  ~Harness() {
    if (component_) component_->stop();
  }

  Component& component() { return *component_; }
  const Config& config() const { return config_; }
  const ComponentFactory& factory() const { return factory_; }
  /// The factory's probe with this harness's resolved options.
  Availability probe() const { return factory_.probe(config_); }

  /// start(), poll() until kDone (at most `max_polls`), flush(), stop().
  void run_source(std::size_t max_polls = 1'000'000) {
    component_->start();
    for (std::size_t i = 0; i < max_polls; ++i)
      if (component_->poll(out) == PollResult::kDone) break;
    component_->flush(out);
    component_->stop();
  }
  /// start(), process() each input in order, flush(), stop().
  void run_processor(const std::vector<std::pair<std::size_t, Envelope>>& inputs) {
    component_->start();
    for (const auto& [port, env] : inputs) component_->process(env, port, out);
    component_->flush(out);
    component_->stop();
  }

  /// The messages emitted on `port` as T; for T = MetricBatch, frames are expanded into their points.
  template <MessageType T>
  std::vector<T> outputs_of(std::size_t port) const {
    std::vector<T> result;
    for (const auto& [p, env] : out.emitted)
      if (p == port) {
        if constexpr (std::is_same_v<T, MetricBatch>)
          result.push_back(metric_points_of(env));
        else
          result.push_back(env.template as<T>());
      }
    return result;
  }

  FakeHost host;
  CapturingEmitter out;

 private:
  const ComponentFactory& factory_;
  Config config_;
  std::unique_ptr<Component> component_;
};

}  // namespace cann_debug::testing
