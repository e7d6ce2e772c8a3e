// Runs a validated pipeline as a oneTBB flow graph.
//
// Every non-source component is a function_node with the manifest's concurrency; sources (samplers and
// readers) are polled from their own threads and are held back while any node they feed has
// `queue_capacity` messages waiting, so a slow consumer cannot make memory grow without bound.
// End of stream: once every source is done (or stopped), the graph is drained and each component is
// flushed in topological order, draining after each, then stopped. A component that throws is reported
// with its id and YAML position; then its `on_error:` policy decides: `cancel` (the default) cancels the
// run (what sinks already wrote stays written), `drain` stops that component and lets the rest of the
// graph run to its end, `skip` drops the message that failed and goes on.
//
// Taps: a caller that wants what an output port emits (the verbs that answer on the terminal) names the
// port in RunOptions::taps and is called with each message as it is emitted, whether or not the port is
// linked to anything.
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

/// An output port whose messages the caller is given.
struct PortTap {
  std::string component;  // type/name
  std::string port;
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
  /// Ports to tap, and what is called with each message emitted on one of them: `tap` indexes `taps`.
  /// Called from the emitting component's thread; calls are serialized, and an exception thrown by it
  /// fails the emitting component. A tap naming no output port fails the run before it starts.
  std::vector<PortTap> taps;
  std::function<void(std::size_t tap, const Envelope& message)> on_tap;
};

struct RuntimeError {
  std::string component;
  SourceRef where;
  std::string phase;  // create, start, poll, process, flush, stop, tap
  std::string message;
  /// The component's policy kept the run going (drain or skip): a warning, not a failed run.
  bool contained = false;
  ErrorPolicy policy = ErrorPolicy::kCancel;
  std::string to_string() const;
};

struct RunReport {
  bool ok = true;  // no error the policies did not contain
  bool interrupted = false;
  bool cancelled = false;
  double seconds = 0;
  std::vector<NodeStats> nodes;
  std::vector<RuntimeError> errors;  // contained ones included
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
