// The host's side of HostServices: one clock for the run, spdlog behind the loggers, the cancel flag.
#pragma once

#include <atomic>
#include <chrono>
#include <string>

#include "cann_debug/host_services.hpp"

namespace cann_debug::host {

/// One monotonic clock mapped to the epoch once, so timestamps of all components agree and never jump.
class RunClock {
 public:
  RunClock();
  TimestampNs now_ns() const;

 private:
  std::chrono::steady_clock::time_point steady0_;
  TimestampNs epoch0_ns_;
};

class ComponentLogger : public Logger {
 public:
  explicit ComponentLogger(std::string component_id) : id_(std::move(component_id)) {}
  void log(LogLevel level, std::string_view message) override;
  bool enabled(LogLevel level) const override;

 private:
  std::string id_;
};

class ComponentServices : public HostServices {
 public:
  ComponentServices(std::string id, const RunClock& clock, const std::atomic<bool>& cancelled)
      : logger_(std::move(id)), clock_(clock), cancelled_(cancelled) {}
  Logger& logger() override { return logger_; }
  TimestampNs now_ns() const override { return clock_.now_ns(); }
  bool cancelled() const override { return cancelled_.load(std::memory_order_relaxed); }

 private:
  ComponentLogger logger_;
  const RunClock& clock_;
  const std::atomic<bool>& cancelled_;
};

}  // namespace cann_debug::host
