// Runs a validated pipeline as a oneTBB flow graph.
//
// Every non-source component is a function_node with the manifest's concurrency; sources (samplers and
// readers) are polled from their own threads and are held back while any node they feed has
// `queue_capacity` messages waiting, so a slow consumer cannot make memory grow without bound.
// End of stream: once every source is done (or stopped), the graph is drained and each component is
// flushed in topological order, draining after each, then stopped. A component that throws is reported
// with its id and YAML position and cancels the run; what sinks already wrote stays written.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "diagnostic.hpp"
#include "pipeline_plan.hpp"

namespace cann_debug::host {

struct NodeStats {
  std::string id;
  std::uint64_t received = 0;
  std::uint64_t emitted = 0;
  std::int64_t max_queued = 0;
  double busy_seconds = 0;
};

/// What a progress callback is shown while sources run.
struct RunProgress {
  double elapsed_seconds = 0;
  std::vector<NodeStats> nodes;  // live counts (sources: emitted = messages produced so far)
};

struct RunOptions {
  std::size_t queue_capacity = 0;     // 0 = the pipeline's settings.queue_capacity
  std::int64_t idle_interval_ns = 0;  // 0 = the pipeline's settings.idle_interval
  std::int64_t duration_ns = 0;       // stop sources after this long; 0 = run until they finish
  /// 1 = stop the sources and drain (first Ctrl-C); 2 = cancel now (second Ctrl-C). May be null.
  const std::atomic<int>* interrupt = nullptr;
  /// Readable once `interrupt` was raised (a pipe the signal handler writes to), or -1. With it, sources
  /// sleep their whole interval between polls; without it they wake every 20 ms to look at `interrupt`.
  int interrupt_fd = -1;
  /// Called from a runner thread every `progress_interval_ns` while the sources run (may be empty).
  std::function<void(const RunProgress&)> on_progress;
  std::int64_t progress_interval_ns = 1'000'000'000;
};

struct RuntimeError {
  std::string component;
  SourceRef where;
  std::string phase;  // create, start, poll, process, flush, stop
  std::string message;
  std::string to_string() const;
};

struct RunReport {
  bool ok = true;
  bool interrupted = false;
  bool cancelled = false;
  double seconds = 0;
  std::vector<NodeStats> nodes;
  std::vector<RuntimeError> errors;
};

class GraphRunner {
 public:
  GraphRunner(const PipelinePlan& plan, RunOptions options);
  ~GraphRunner();
  GraphRunner(const GraphRunner&) = delete;
  GraphRunner& operator=(const GraphRunner&) = delete;

  RunReport run();

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace cann_debug::host
