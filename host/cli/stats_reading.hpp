// Drives one reader over one file, and the hta_metrics extractor over trace events, in this thread.
//
// `stats` does not go through the graph runner: a run is cancelled when a component fails, which drops
// queued messages and skips every flush, while `stats` must still count what a failing reader delivered
// and compute the HTA figures of it. Driving the two components directly also keeps memory flat: each
// batch is counted and handed to hta_metrics as it comes, and then dropped.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <string>

#include "cann_debug/component.hpp"
#include "host_services_impl.hpp"
#include "plugin_registry.hpp"
#include "stats_model.hpp"

namespace cann_debug::cli::stats {

/// What components created by `stats` share: one clock and the (never set) cancellation flag.
struct DriverContext {
  host::RunClock clock;
  std::atomic<bool> cancelled{false};
};

/// Called with every event.batch/1 envelope a reader emits.
using EventBatchHandler = std::function<void(const Envelope&)>;

/// Reads `path` with `reader` (its `path` option set, `options` over the defaults of the others) to the end
/// or to its first error, counting what it emits; event batches also go to `on_events`.
FileStats read_with(const host::ComponentEntry& reader, const std::string& path, DriverContext& ctx,
                    const EventBatchHandler& on_events,
                    const nlohmann::json& options = nlohmann::json::object());

/// An hta_metrics component fed event batches; finish() flushes it and returns its feature sets.
class HtaAccumulator {
 public:
  HtaAccumulator(const host::ComponentEntry& entry, bool include_last_profiler_step, DriverContext& ctx);
  ~HtaAccumulator();
  HtaAccumulator(const HtaAccumulator&) = delete;
  HtaAccumulator& operator=(const HtaAccumulator&) = delete;

  void feed(const Envelope& events);
  void mark_partial() { result_.partial = true; }
  bool fed() const { return fed_; }
  HtaResult finish();

 private:
  void fail(const std::string& phase, const std::string& message);

  std::unique_ptr<host::ComponentServices> services_;
  std::unique_ptr<Component> component_;
  std::size_t events_port_ = 0;
  bool fed_ = false;
  HtaResult result_;
};

}  // namespace cann_debug::cli::stats
