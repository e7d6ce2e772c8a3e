// Building trace events for the tests: complete events in microseconds, as the legacy exporter writes them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"

namespace cann_debug::plugins::distributed::test {

inline Event span(std::string name, std::int64_t ts_us, std::int64_t dur_us, std::int64_t tid = 1,
                  std::int64_t rank = -1) {
  Event e;
  e.name = std::move(name);
  e.phase = 'X';
  e.start_ns = ts_us * 1000;
  e.duration_ns = dur_us * 1000;
  e.tid = tid;
  e.key.timestamp_ns = e.start_ns;
  e.key.rank = static_cast<std::int32_t>(rank);
  return e;
}

/// A device row of a Kineto trace (category kernel, gpu_memcpy, gpu_memset, ...) on `stream`, with a
/// correlation id when `correlation` >= 0.
inline Event device_row(std::string category, std::string name, std::int64_t ts_us, std::int64_t dur_us,
                        std::int64_t stream, std::int64_t correlation = -1, std::int64_t rank = -1) {
  Event e = span(std::move(name), ts_us, dur_us, stream, rank);
  e.category = std::move(category);
  e.args = {{"device", 0}, {"stream", stream}};
  if (correlation >= 0) e.args["correlation"] = correlation;
  return e;
}

/// The CPU launch call (cudaLaunchKernel, category cuda_runtime) of the device row with `correlation`.
inline Event launch(std::int64_t correlation, std::int64_t ts_us, std::int64_t rank = -1) {
  Event e = span("cudaLaunchKernel", ts_us, 5, 1, rank);
  e.category = "cuda_runtime";
  e.args = {{"correlation", correlation}};
  return e;
}

/// One DDP step with bucketed gradients: data loading, forward, backward holding one autograd node with a
/// collective call in it, the collective's work on thread 2 from `comm_start` for `comm_us`, optimizer.
/// `t0` is the step start; the step lasts 50 ms.
inline std::vector<Event> ddp_step(std::int64_t step, std::int64_t t0, std::int64_t loading_us,
                                   std::int64_t forward_us, std::int64_t comm_us, std::int64_t rank,
                                   bool comm_after_backward = false) {
  std::vector<Event> e;
  const std::int64_t fw = t0 + loading_us;
  const std::int64_t bw = fw + forward_us;
  const std::int64_t bw_end = t0 + 45000;
  e.push_back(span("ProfilerStep#" + std::to_string(step), t0, 50000, 1, rank));
  e.push_back(span("data_loading", t0, loading_us, 1, rank));
  e.push_back(span("forward", fw, forward_us, 1, rank));
  if (comm_after_backward) {
    e.push_back(span("backward", bw, 4000, 1, rank));
    e.push_back(span("autograd::engine::evaluate_function: AddmmBackward0", bw, 4000, 1, rank));
    e.push_back(span("c10d::allreduce_", bw + 4100, 100, 1, rank));
    e.push_back(span("gloo:all_reduce", bw + 4150, comm_us, 2, rank));
  } else {
    e.push_back(span("backward", bw, bw_end - bw, 1, rank));
    e.push_back(span("autograd::engine::evaluate_function: AddmmBackward0", bw, 4000, 1, rank));
    e.push_back(span("c10d::allreduce_", bw + 1000, 200, 1, rank));
    e.push_back(span("gloo:all_reduce", bw_end - comm_us, comm_us, 2, rank));
  }
  e.push_back(span("optimizer_step", t0 + 45000, 1000, 1, rank));
  return e;
}

}  // namespace cann_debug::plugins::distributed::test
