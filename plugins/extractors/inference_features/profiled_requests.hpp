// Which requests a profiler slowed. torch.profiler names each profiled served batch `ProfilerStep#N`; a
// server that batches first in, first out serves its requests in arrival order, `batch_size` at a time, so
// the request log says which requests batch N served. A server profiled from its first request (a schedule
// with wait=0) pays the profiler's overhead on exactly the calls a cold start slows, and the batch after the
// window waits while the profiler processes what it recorded: both look like a slow start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "request_log.hpp"

namespace cann_debug::plugins::inference {

/// The first calls a cold start slows: the start features read them alone, and the profiler's overhead is
/// measured without them.
constexpr std::size_t kFirstCalls = 3;

struct ProfilerRegime {
  bool applied = false;               // the profiled batches were found in the request log
  bool first_calls_profiled = false;  // the trace holds ProfilerStep#0: the profiler ran from the first call
  double overhead = 1.0;         // median service time of a profiled batch over that of unprofiled batches
                                 // of the same size (at least 1)
  std::size_t profiled = 0;      // requests served in profiled batches
  std::size_t after_stop = 0;    // requests left out: the queue the profiler's stop built, until it drained
  std::vector<double> start_ms;  // latency per request for the start statistics: a profiled request's divided
                                 // by `overhead`, NaN for a request left out; the latencies as read when not
                                 // applied
};

/// `requests` sorted by id; `profiled_batches` the N of the trace's ProfilerStep#N spans. Not applied (the
/// latencies unchanged) without profiled batches, without a batch size on every request, when the batch
/// sizes do not group the requests into batches that completed together (within 1 ms), or when fewer than 5
/// profiled batches (after those of the first three calls) have 5 unprofiled batches of their size to be
/// compared with.
ProfilerRegime profiler_regime(const std::vector<Request>& requests,
                               const std::vector<std::int64_t>& profiled_batches);

}  // namespace cann_debug::plugins::inference
