#include "device_timeline.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_map>

#include "cann_debug/trace_events.hpp"

namespace cann_debug::plugins::distributed {
namespace {

std::int64_t correlation_of(const nlohmann::json& args) {
  if (!args.is_object()) return -1;
  const auto it = args.find("correlation");
  if (it == args.end()) return -1;
  if (it->is_number_integer()) return std::max<std::int64_t>(-1, it->get<std::int64_t>());
  if (it->is_number_float()) {
    const double d = it->get<double>();
    return std::isfinite(d) && d >= 0 && d < 9e18 ? static_cast<std::int64_t>(d) : -1;
  }
  return -1;
}

}  // namespace

bool DeviceTimeline::add(const Event& event) {
  if (event.phase != 'X' || event.start_ns == kNoTimestamp || event.duration_ns < 0) return false;
  const trace::EventCategory category = trace::category_of(event.category);  // once per event
  if (trace::is_device_row(category)) {
    Row row{
        {event.start_ns, event.start_ns + event.duration_ns}, correlation_of(event.args), RowClass::kOther};
    if (category == trace::EventCategory::kKernel) {
      has_kernels_ = true;
      // HTA's classes: NCCL/HCCL kernels communicate; everything not memory or runtime bookkeeping computes.
      switch (trace::kernel_type(event.name)) {
        case trace::KernelType::kCommunication:
          row.kind = RowClass::kCommunication;
          break;
        case trace::KernelType::kComputation:
          row.kind = RowClass::kComputation;
          break;
        default:
          break;
      }
    }
    rows_.push_back(row);
    return true;
  }
  if (category == trace::EventCategory::kRuntime) {
    const std::int64_t correlation = correlation_of(event.args);
    if (correlation < 0) return false;
    launches_.push_back({correlation, event.start_ns});
    return true;
  }
  return false;
}

std::vector<DeviceStep> DeviceTimeline::per_step(const std::vector<Interval>& step_windows) const {
  std::unordered_map<std::int64_t, std::int64_t> launch_start;
  launch_start.reserve(launches_.size());
  for (const Launch& l : launches_) launch_start.emplace(l.correlation, l.start_ns);

  // Windows sorted by start, so each row finds its step by binary search.
  std::vector<std::size_t> order(step_windows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return step_windows[a].begin < step_windows[b].begin; });
  auto step_of = [&](std::int64_t t) -> std::ptrdiff_t {
    const auto it = std::upper_bound(order.begin(), order.end(), t, [&](std::int64_t v, std::size_t i) {
      return v < step_windows[i].begin;
    });
    if (it == order.begin()) return -1;
    const std::size_t i = *(it - 1);
    return t < step_windows[i].end ? static_cast<std::ptrdiff_t>(i) : -1;
  };

  struct Rows {
    std::vector<Interval> communication, computation, all;
  };
  std::vector<Rows> by_step(step_windows.size());
  std::vector<DeviceStep> out(step_windows.size());
  for (const Row& r : rows_) {
    const auto launch = r.correlation >= 0 ? launch_start.find(r.correlation) : launch_start.end();
    const std::ptrdiff_t s = step_of(launch != launch_start.end() ? launch->second : r.time.begin);
    if (s < 0) continue;
    Rows& rows = by_step[static_cast<std::size_t>(s)];
    rows.all.push_back(r.time);
    if (r.kind == RowClass::kCommunication) {
      rows.communication.push_back(r.time);
      ++out[static_cast<std::size_t>(s)].collective_kernels;
    } else if (r.kind == RowClass::kComputation) {
      rows.computation.push_back(r.time);
    }
  }
  for (std::size_t i = 0; i < out.size(); ++i) {
    const Rows& rows = by_step[i];
    DeviceStep& d = out[i];
    d.collective_ns = union_length(rows.communication);
    d.exposed_collective_ns = d.collective_ns - overlap_length(rows.communication, rows.computation);
    d.compute_ns = union_length(rows.computation);
    d.busy_ns = union_length(rows.all);
  }
  return out;
}

}  // namespace cann_debug::plugins::distributed
