// The four hardware conditions a diagnosis weighs, each turned into features with the window, the device,
// port or host, and the steps or requests it overlapped as evidence (docs/features-hardware.md).
#pragma once

#include <vector>

#include "cann_debug/messages.hpp"
#include "hardware_series.hpp"
#include "stretches.hpp"

namespace cann_debug::plugins::hardware {

struct Thresholds {
  double clock_low = 0.85;    // a device clock below this share of its reference is throttled
  double device_busy = 0.3;   // ... while the device is at least this busy (when utilisation is sampled)
  double memory_full = 0.95;  // used / capacity at or above this is memory pressure
  double congestion =
      0.01;  // congestion signals (PFC/pause frames, CNPs, ECN marks, retransmissions) per packet
  double run_queue_per_core =
      1.5;  // runnable threads per core at or above this (with the CPUs busy) is starvation
  double run_queue_alone = 2.0;  // ... the same without the workload's own CPU time (process not sampled)
  double cpu_busy = 0.9;
  double iowait = 0.3;
  double steal = 0.2;
};

struct Context {
  const SeriesStore& store;
  const RunTimeline& timeline;
  StretchRule rule;
  Thresholds limits;
};

/// hw.device.clock_drop, hw.device.throttled_share, hw.device.reference_clock, hw.device.throttle_temperature
void device_clock(const Context& ctx, std::vector<Feature>& out);
/// hw.memory.peak_utilization, hw.memory.pressure_share
void memory_pressure(const Context& ctx, std::vector<Feature>& out);
/// hw.network.congestion_ratio, hw.network.congestion_rate, hw.network.congested_share
void network_congestion(const Context& ctx, std::vector<Feature>& out);
/// hw.host.cpu_starved_share, hw.host.run_queue_per_core, hw.host.iowait, hw.host.steal
void host_cpu(const Context& ctx, std::vector<Feature>& out);

/// The window reference of a finding: kind "window", an id that says what, where and when, the steps it
/// overlapped.
EvidenceRef window_ref(const Context& ctx, const Series& series, const Stretch& stretch,
                       const std::string& what);

}  // namespace cann_debug::plugins::hardware
