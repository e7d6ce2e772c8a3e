// Features of the request log: latency distribution, spikes and where they sit, cold start, queue growth,
// batching and offered load.
#pragma once

#include <cstdint>
#include <vector>

#include "cann_debug/messages.hpp"
#include "request_log.hpp"

namespace cann_debug::plugins::inference {

struct RequestFeatureOptions {
  double spike_factor = 5.0;  // a spike is a request slower than spike_factor x the median latency
};

/// What the request log says about offered load, for features combining it with the trace.
struct LoadSummary {
  double offered_rps = 0.0;      // arrivals per second (NaN when unknown)
  double mean_batch_size = 0.0;  // requests per model call (NaN when unknown)
};

/// Appends the request features to `out` (requests in any order; sorted by request_id inside).
/// `profiled_batches`: the served batches a trace profiled (ProfilerStep#N), whose requests the start
/// features read in the profiler's regime (profiled_requests.hpp); empty without a trace.
LoadSummary request_features(std::vector<Request> requests, const RequestFeatureOptions& options,
                             const std::vector<std::int64_t>& profiled_batches, std::vector<Feature>& out);

}  // namespace cann_debug::plugins::inference
