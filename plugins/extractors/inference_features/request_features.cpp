#include "request_features.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "feature_builder.hpp"
#include "profiled_requests.hpp"
#include "sample_stats.hpp"

namespace cann_debug::plugins::inference {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

std::vector<double> latencies(const std::vector<Request>& requests, std::size_t first, std::size_t last) {
  std::vector<double> values;
  for (std::size_t i = first; i < last && i < requests.size(); ++i) values.push_back(requests[i].latency_ms);
  return values;
}

TimestampNs arrival_ns(const Request& r) {
  const auto a = r.arrival_s();
  return a ? seconds_to_ns(*a) : kNoTimestamp;
}

TimestampNs completion_ns(const Request& r) {
  return r.completion_s ? seconds_to_ns(*r.completion_s) : kNoTimestamp;
}

EvidenceRef range_of(const std::vector<Request>& requests, std::size_t first, std::size_t last_inclusive) {
  return request_range(requests[first].id, requests[last_inclusive].id, arrival_ns(requests[first]),
                       completion_ns(requests[last_inclusive]));
}

bool all_timed(const std::vector<Request>& requests) {
  return std::all_of(requests.begin(), requests.end(),
                     [](const Request& r) { return r.completion_s.has_value(); });
}

void latency_distribution(const std::vector<Request>& requests, const RequestFeatureOptions& options,
                          FeatureBuilder& features) {
  const std::size_t n = requests.size();
  const auto all = latencies(requests, 0, n);
  const double p50 = median(all);
  const EvidenceRef everything = range_of(requests, 0, n - 1);
  features.add("latency.p50", p50, "ms", {everything});
  features.add("latency.p95", quantile(all, 0.95), "ms", {everything});
  features.add("latency.p99", quantile(all, 0.99), "ms", {everything});
  if (p50 > 0.0) features.add("latency.tail_ratio", quantile(all, 0.99) / p50, "ratio", {everything});
  features.add("latency.first_request", requests.front().latency_ms, "ms", {range_of(requests, 0, 0)});

  // Spikes: requests slower than spike_factor x the median; where they sit tells cold start (all at the
  // beginning) from jitter (spread over the run).
  if (p50 <= 0.0) return;
  std::vector<std::size_t> spikes;
  for (std::size_t i = 0; i < n; ++i)
    if (requests[i].latency_ms > options.spike_factor * p50) spikes.push_back(i);
  std::vector<EvidenceRef> spike_refs;
  for (std::size_t k = 0; k < spikes.size() && k < 10; ++k)
    spike_refs.push_back(range_of(requests, spikes[k], spikes[k]));
  features.add("latency.spike_share", static_cast<double>(spikes.size()) / static_cast<double>(n), "ratio",
               spike_refs);
  if (!spikes.empty() && n >= 10) {
    const std::size_t start_end = n / 10;  // the first 10% of requests
    const auto at_start =
        std::count_if(spikes.begin(), spikes.end(), [&](std::size_t i) { return i < start_end; });
    features.add("latency.spike_start_share",
                 static_cast<double>(at_start) / static_cast<double>(spikes.size()), "ratio",
                 {range_of(requests, 0, start_end - 1)});
  }
}

std::vector<double> finite_values(const std::vector<double>& values, std::size_t first, std::size_t last) {
  std::vector<double> out;
  for (std::size_t i = first; i < last && i < values.size(); ++i)
    if (std::isfinite(values[i])) out.push_back(values[i]);
  return out;
}

// Cold start: the slowest of the first requests against the steady state (median of the second half).
// The start window is the first 5% of the requests, at least 3. Latencies are the regime's: a profiled
// request's over the profiler's overhead, the queue after the profiler's stop left out.
void start_versus_steady(const std::vector<Request>& requests, const ProfilerRegime& regime,
                         FeatureBuilder& features) {
  const std::size_t n = requests.size();
  if (n < 8) return;
  const std::size_t window = std::max<std::size_t>(3, (n + 19) / 20);
  const auto& ms = regime.start_ms;
  const auto steady_values = finite_values(ms, n / 2, n);
  const auto start = finite_values(ms, 0, window);
  const auto first = finite_values(ms, 0, kFirstCalls);
  if (steady_values.empty() || first.empty()) return;
  const double steady = median(steady_values);
  if (steady <= 0.0) return;
  const EvidenceRef steady_ref = range_of(requests, n / 2, n - 1);
  features.add("latency.start_over_steady", *std::max_element(start.begin(), start.end()) / steady, "ratio",
               {range_of(requests, 0, window - 1), steady_ref});
  // The first three calls alone. First-call costs land on exactly these (TorchScript's profiling run and the
  // optimised plan it builds on the next call, cuDNN's autotuning, lazy allocation), whereas the 5% window
  // grows with the run, and with it the chance that ordinary jitter puts a slow request in it. The
  // second-slowest of the three, as in the trace (trace_features.cpp): a service that was not warmed up pays
  // on two calls at least (and its queue passes the wait on), while one slow call of three is a hiccup (a
  // warmed sub-millisecond service: 1.6 ms once against a median of 0.6). A profiler that started with the
  // first call costs these calls its own start-up, which their latency cannot tell from a cold start: then
  // they are no evidence (left unmeasured).
  if (!regime.first_calls_profiled && first.size() >= 2) {
    std::vector<double> slowest = first;
    std::sort(slowest.begin(), slowest.end(), std::greater<>());
    features.add("latency.first_calls_over_steady", slowest[1] / steady, "ratio",
                 {range_of(requests, 0, kFirstCalls - 1), steady_ref});
  } else if (regime.first_calls_profiled)
    features.add("latency.profiled_from_first_call", 1.0, "flag", {range_of(requests, 0, kFirstCalls - 1)});
  if (regime.applied) {
    features.add("latency.profiler_overhead", regime.overhead, "ratio", {range_of(requests, 0, n - 1)});
    features.add("latency.requests_after_profiler_stop", static_cast<double>(regime.after_stop), "requests",
                 {range_of(requests, 0, n - 1)});
  }
}

// Queue growth: median latency of the last quarter over the first quarter (arrival order).
void latency_growth(const std::vector<Request>& requests, FeatureBuilder& features) {
  const std::size_t n = requests.size();
  if (n < 8) return;
  const std::size_t quarter = n / 4;
  const double first = median(latencies(requests, 0, quarter));
  const double last = median(latencies(requests, n - quarter, n));
  if (first > 0.0)
    features.add("latency.growth_ratio", last / first, "ratio",
                 {range_of(requests, 0, quarter - 1), range_of(requests, n - quarter, n - 1)});
}

double batch_sizes(const std::vector<Request>& requests, FeatureBuilder& features) {
  std::vector<double> sizes;
  for (const auto& r : requests)
    if (r.batch_size) sizes.push_back(*r.batch_size);
  if (sizes.size() != requests.size()) return kNaN;
  const EvidenceRef everything = range_of(requests, 0, requests.size() - 1);
  const double mean_size = mean(sizes);
  features.add("batch.size_mean", mean_size, "requests", {everything});
  features.add("batch.size_max", *std::max_element(sizes.begin(), sizes.end()), "requests", {everything});
  return mean_size;
}

// Queue seen by each arriving request: earlier requests not yet answered at its arrival.
double waiting_requests(const std::vector<Request>& requests, double mean_batch_size,
                        FeatureBuilder& features) {
  const std::size_t n = requests.size();
  std::vector<double> arrivals;
  std::vector<double> completions;
  for (const auto& r : requests) {
    arrivals.push_back(*r.arrival_s());
    completions.push_back(*r.completion_s);
  }
  // Requests are in arrival order, so every request from i on completes after arrival i: the earlier ones
  // still unanswered are all completions after arrival i minus the (n - i) requests from i on.
  std::vector<double> sorted_completions = completions;
  std::sort(sorted_completions.begin(), sorted_completions.end());
  double total = 0.0;
  std::size_t deepest = 0;
  double deepest_count = -1.0;
  for (std::size_t i = 0; i < n; ++i) {
    const auto later = sorted_completions.end() -
                       std::upper_bound(sorted_completions.begin(), sorted_completions.end(), arrivals[i]);
    const double waiting = std::max(0.0, static_cast<double>(later) - static_cast<double>(n - i));
    total += waiting;
    if (waiting > deepest_count) {
      deepest_count = waiting;
      deepest = i;
    }
  }
  const double mean_waiting = total / static_cast<double>(n);
  const std::vector<EvidenceRef> refs = {range_of(requests, 0, n - 1), range_of(requests, deepest, deepest)};
  features.add("queue.waiting_mean", mean_waiting, "requests", refs);
  features.add("queue.waiting_max", deepest_count, "requests", {range_of(requests, deepest, deepest)});
  if (mean_batch_size > 0.0)
    features.add("queue.backlog_per_batch", mean_waiting / mean_batch_size, "ratio", refs);
  return mean_waiting;
}

double offered_load(const std::vector<Request>& requests, FeatureBuilder& features) {
  const std::size_t n = requests.size();
  if (n < 2) return kNaN;
  double first_arrival = std::numeric_limits<double>::infinity();
  double last_arrival = -first_arrival;
  double first_completion = first_arrival;
  double last_completion = -first_arrival;
  for (const auto& r : requests) {
    first_arrival = std::min(first_arrival, *r.arrival_s());
    last_arrival = std::max(last_arrival, *r.arrival_s());
    first_completion = std::min(first_completion, *r.completion_s);
    last_completion = std::max(last_completion, *r.completion_s);
  }
  const EvidenceRef everything = range_of(requests, 0, n - 1);
  const double intervals = static_cast<double>(n - 1);
  const double offered = last_arrival > first_arrival ? intervals / (last_arrival - first_arrival) : kNaN;
  const double served =
      last_completion > first_completion ? intervals / (last_completion - first_completion) : kNaN;
  features.add("load.offered_rps", offered, "1/s", {everything});
  features.add("load.served_rps", served, "1/s", {everything});
  features.add("load.served_over_offered", served / offered, "ratio", {everything});
  return offered;
}

}  // namespace

LoadSummary request_features(std::vector<Request> requests, const RequestFeatureOptions& options,
                             const std::vector<std::int64_t>& profiled_batches, std::vector<Feature>& out) {
  LoadSummary load{kNaN, kNaN};
  if (requests.empty()) return load;
  std::stable_sort(requests.begin(), requests.end(),
                   [](const Request& a, const Request& b) { return a.id < b.id; });
  FeatureBuilder features(out);
  features.add("request.count", static_cast<double>(requests.size()), "requests",
               {range_of(requests, 0, requests.size() - 1)});
  latency_distribution(requests, options, features);
  start_versus_steady(requests, profiler_regime(requests, profiled_batches), features);
  latency_growth(requests, features);
  load.mean_batch_size = batch_sizes(requests, features);
  if (all_timed(requests)) {
    waiting_requests(requests, load.mean_batch_size, features);
    load.offered_rps = offered_load(requests, features);
  }
  return load;
}

}  // namespace cann_debug::plugins::inference
