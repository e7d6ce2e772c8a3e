#include "profiled_requests.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "sample_stats.hpp"

namespace cann_debug::plugins::inference {
namespace {

constexpr double kSameBatchS = 0.001;  // requests of one model call complete together
constexpr std::size_t kMinSample = 5;
constexpr double kDrainedFactor = 2.0;  // the queue after the stop has drained at 2x the unprofiled median

// Served batch of every request (arrival order), or empty when the batch sizes do not group the requests.
std::vector<std::int64_t> batch_of_requests(const std::vector<Request>& requests) {
  std::vector<std::int64_t> batch(requests.size(), -1);
  std::size_t i = 0;
  for (std::int64_t index = 0; i < requests.size(); ++index) {
    const auto& first = requests[i];
    if (!first.batch_size || !first.completion_s) return {};
    const double size = *first.batch_size;
    if (size < 1.0 || size != std::floor(size) || i + static_cast<std::size_t>(size) > requests.size())
      return {};
    for (std::size_t k = i; k < i + static_cast<std::size_t>(size); ++k) {
      const auto& r = requests[k];
      if (!r.batch_size || *r.batch_size != size || !r.completion_s ||
          std::abs(*r.completion_s - *first.completion_s) > kSameBatchS)
        return {};
      batch[k] = index;
    }
    i += static_cast<std::size_t>(size);
  }
  return batch;
}

}  // namespace

ProfilerRegime profiler_regime(const std::vector<Request>& requests,
                               const std::vector<std::int64_t>& profiled_batches) {
  ProfilerRegime regime;
  for (const auto& r : requests) regime.start_ms.push_back(r.latency_ms);
  regime.first_calls_profiled =
      std::find(profiled_batches.begin(), profiled_batches.end(), 0) != profiled_batches.end();
  if (profiled_batches.empty()) return regime;
  const auto batch = batch_of_requests(requests);
  if (batch.empty()) return regime;
  const std::set<std::int64_t> profiled_set(profiled_batches.begin(), profiled_batches.end());
  std::vector<bool> profiled(requests.size(), false);
  std::vector<double> other_ms;
  for (std::size_t i = 0; i < requests.size(); ++i) {
    profiled[i] = profiled_set.count(batch[i]) > 0;
    if (!profiled[i]) other_ms.push_back(requests[i].latency_ms);
  }
  // The overhead from the batches' own service times, not from latencies: the queue a slow start builds,
  // which the profiled window may hold, is not the profiler's. A batch starts when the previous one has
  // completed and its oldest request has arrived (FIFO), and ends at its completion. Profiled batches are
  // compared with unprofiled batches of the same size; batches holding the first calls are left out.
  std::map<double, std::vector<double>> other_service;
  std::vector<std::pair<double, double>> profiled_service;  // (size, ms)
  double previous_done = -std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < requests.size();) {
    const double size = *requests[i].batch_size;
    const double done = *requests[i].completion_s;
    const double start = std::max(previous_done, *requests[i].arrival_s());
    const double service_ms = (done - start) * 1000.0;
    if (profiled[i] && i >= kFirstCalls)
      profiled_service.emplace_back(size, service_ms);
    else if (!profiled[i])
      other_service[size].push_back(service_ms);
    previous_done = done;
    i += static_cast<std::size_t>(size);
  }
  std::vector<double> ratios;
  for (const auto& [size, ms] : profiled_service) {
    const auto it = other_service.find(size);
    if (it == other_service.end() || it->second.size() < kMinSample) continue;
    const double typical = median(it->second);
    if (typical > 0.0) ratios.push_back(ms / typical);
  }
  if (ratios.size() < kMinSample || other_ms.size() < kMinSample) return regime;
  const double other_median = median(other_ms);
  if (!(other_median > 0.0)) return regime;
  regime.applied = true;
  regime.overhead = std::max(1.0, median(ratios));
  for (std::size_t i = 0; i < requests.size(); ++i) {
    if (profiled[i]) {
      regime.start_ms[i] = requests[i].latency_ms / regime.overhead;
      ++regime.profiled;
    }
  }
  // The stop: the first unprofiled batch after a profiled one waited while the profiler processed its
  // events, and the requests queued meanwhile wait behind it; they are left out until one is back within
  // twice the unprofiled median.
  for (std::size_t i = 1; i < requests.size(); ++i) {
    if (profiled[i] || !profiled[i - 1]) continue;
    for (std::size_t k = i; k < requests.size() && !profiled[k]; ++k) {
      if (requests[k].latency_ms <= kDrainedFactor * other_median) break;
      regime.start_ms[k] = std::numeric_limits<double>::quiet_NaN();
      ++regime.after_stop;
    }
  }
  return regime;
}

}  // namespace cann_debug::plugins::inference
