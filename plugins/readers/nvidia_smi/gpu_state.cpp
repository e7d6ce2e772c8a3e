#include "gpu_state.hpp"

#include <fmt/format.h>

namespace cann_debug::plugins::nvidia_smi {
namespace {

using nlohmann::json;

struct Condition {
  const char* event;
  const char* severity;
  std::string meaning, action;
};

void add_figure(json& f, const char* key, const std::optional<double>& v) {
  if (v) f[key] = *v;
}

std::string device_of(const GpuState& g) {
  return !g.bus_id.empty() ? g.bus_id : fmt::format("GPU {}", g.index);
}

std::vector<Condition> conditions_of(const GpuState& g) {
  std::vector<Condition> out;
  if (g.lost)
    out.push_back({"gpu_lost", "error",
                   "nvidia-smi could not read the GPU (ERR!): it fell off the bus or hung",
                   "drain the node; reset or reseat the GPU and check the kernel log for Xid 79"});
  const double unc =
      std::max(g.ecc_uncorrected_volatile.value_or(0), g.ecc_uncorrected_aggregate.value_or(0));
  if (unc > 0)
    out.push_back({"ecc_uncorrectable", "error",
                   fmt::format("{:.0f} uncorrectable ECC error(s) in GPU memory", unc),
                   "drain the node; the GPU needs a reset (row remapping) or replacement"});
  if (g.remap_failure)
    out.push_back({"row_remap_failure", "error", "a memory row could not be remapped (no spare rows left)",
                   "replace the GPU"});
  if (g.remap_pending)
    out.push_back({"row_remap_pending", "warning", "a memory row waits for remapping at the next GPU reset",
                   "reset the GPU when the job allows"});
  if (g.retired_pages_pending)
    out.push_back({"page_retirement_pending", "warning",
                   "a memory page waits for retirement at the next reset",
                   "reset the GPU when the job allows"});
  if (g.retired_pages_double_bit.value_or(0) > 0)
    out.push_back({"pages_retired_double_bit", "warning",
                   fmt::format("{:.0f} page(s) retired after double-bit errors", *g.retired_pages_double_bit),
                   "watch the count; replace the GPU when it keeps rising"});
  for (const auto& reason : g.slowdown_reasons)
    out.push_back({"clock_slowdown", "warning", fmt::format("clocks slowed down: {}", reason),
                   "check cooling, power delivery and the board's power brake signal"});
  if (g.pcie_width && g.pcie_max_width && *g.pcie_width < *g.pcie_max_width)
    out.push_back({"pcie_link_degraded", "warning",
                   fmt::format("PCIe link at x{:.0f} of x{:.0f}", *g.pcie_width, *g.pcie_max_width),
                   "reseat the GPU or its riser; check the kernel log for PCIe AER errors"});
  return out;
}

}  // namespace

std::vector<Record> records_of(const std::vector<GpuState>& gpus, TimestampNs time, const std::string& node) {
  std::vector<Record> out;
  for (const GpuState& g : gpus) {
    Record r;
    r.line = g.line;
    r.key.timestamp_ns = time;
    if (!node.empty()) r.key.node_id = node;
    json& f = r.fields;
    f = {{"log_kind", "device"}, {"device", device_of(g)}, {"vendor", "nvidia"}};
    if (g.index >= 0) f["index"] = g.index;
    if (!g.name.empty()) f["name"] = g.name;
    if (!g.uuid.empty()) f["uuid"] = g.uuid;
    if (!g.performance_state.empty()) f["performance_state"] = g.performance_state;
    add_figure(f, "temperature_c", g.temperature_c);
    add_figure(f, "slowdown_temperature_c", g.slowdown_temperature_c);
    add_figure(f, "power_w", g.power_w);
    add_figure(f, "power_limit_w", g.power_limit_w);
    add_figure(f, "sm_clock_mhz", g.sm_clock_mhz);
    add_figure(f, "max_sm_clock_mhz", g.max_sm_clock_mhz);
    add_figure(f, "memory_used_mib", g.memory_used_mib);
    add_figure(f, "memory_total_mib", g.memory_total_mib);
    add_figure(f, "utilization_pct", g.utilization_pct);
    add_figure(f, "fan_pct", g.fan_pct);
    add_figure(f, "ecc_uncorrected_volatile", g.ecc_uncorrected_volatile);
    add_figure(f, "ecc_uncorrected_aggregate", g.ecc_uncorrected_aggregate);
    add_figure(f, "ecc_corrected_volatile", g.ecc_corrected_volatile);
    add_figure(f, "remapped_rows_uncorrectable", g.remapped_rows_uncorrectable);
    add_figure(f, "pcie_width", g.pcie_width);
    add_figure(f, "pcie_max_width", g.pcie_max_width);
    out.push_back(std::move(r));
  }
  for (const GpuState& g : gpus)
    for (const Condition& c : conditions_of(g)) {
      Record r;
      r.line = g.line;
      r.key.timestamp_ns = time;
      if (!node.empty()) r.key.node_id = node;
      r.fields = {
          {"log_kind", "event"},
          {"event", c.event},
          {"component", "gpu"},
          {"severity", c.severity},
          {"hardware", true},
          {"device", device_of(g)},
          {"meaning", c.meaning},
          {"action", c.action},
          {"message", fmt::format("{} ({}): {}", g.name.empty() ? "GPU" : g.name, device_of(g), c.meaning)}};
      out.push_back(std::move(r));
    }
  return out;
}

}  // namespace cann_debug::plugins::nvidia_smi
