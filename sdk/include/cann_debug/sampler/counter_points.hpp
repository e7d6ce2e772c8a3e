// Metric points of a sampler that are not plain readings: cumulative counters turned into a rate and a
// delta, and the count of readings that gave no point (invalid value, error code) with the reason.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

#include "cann_debug/host_services.hpp"
#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/counter_delta.hpp"
#include "cann_debug/sampler/frame_builder.hpp"

namespace cann_debug::plugins::sampler_support {

/// The host clock (the samples' time base) now: taken right after a counter is read, so rates divide by the
/// time between the reads themselves, not between the samples' timestamps (taken when the poll began), and a
/// read that comes late in a poll does not make the rate jitter.
std::int64_t read_clock_ns(HostServices* host);

/// One reading of the cumulative counter `key`, read at `read_ns` (read_clock_ns() right after the read)
/// or, when `read_ns` < 0, at `proto.key.timestamp_ns`. Once
/// the counter has a
/// previous reading, appends two copies of `proto`: the rate `<proto.name>` in `<proto.unit>/s` and the
/// change `<proto.name>.delta` in `<proto.unit>`. The first reading, and the first after a reset, add
/// nothing (a reset never shows up as a spike); a wrap of a `width_bits` counter is counted across.
CounterDelta add_counter_points(std::vector<MetricPoint>& out, CounterTracker& tracker,
                                const std::string& key, std::uint64_t value, unsigned width_bits,
                                const MetricPoint& proto, std::int64_t read_ns = -1);

/// Readings that produced no point: an error code from the vendor library, a value the vendor marks
/// invalid. Counted per (device, source, reason) and reported as the cumulative count
/// `sampler.skipped_readings` (unit count; labels device, source_name = the vendor call, reason).
class SkippedReadings {
 public:
  /// Counts one skipped reading; true the first time this (device, source, reason) occurs (log it then).
  bool count(const std::string& device, const std::string& source, const std::string& reason);
  /// Appends one `sampler.skipped_readings` point per (device, source, reason) seen so far.
  void add_points(std::vector<MetricPoint>& out, const CorrelationKey& key) const;
  /// The same readings into a frame (series keys with `what` = kSkippedReadingsKey).
  void add_to(FrameBuilder& frame) const;
  static constexpr std::uint32_t kSkippedReadingsKey = 0xffffffffu;
  std::uint64_t total() const;
  void clear() { counts_.clear(); }

 private:
  struct Count {
    std::uint64_t n = 0;
    std::uint32_t ordinal = 0;  // order of first appearance: the series key in a frame
  };
  std::map<std::tuple<std::string, std::string, std::string>, Count> counts_;
};

}  // namespace cann_debug::plugins::sampler_support
