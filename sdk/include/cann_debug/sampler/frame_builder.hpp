// Builds the metric.frame/1 of one sample. A sampler names each series by a small integer key and
// describes it (name, unit, labels) only the first time the key is seen; after that a reading is one
// store into the frame. Samplers put their readings in the same order every sample, so the lookup is a
// comparison with the next expected key (or one a few slots on, when some were left out this sample), with a
// hash lookup as the fallback.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/sampler/counter_delta.hpp"

namespace cann_debug::plugins::sampler_support {

/// A series of one sampler: what is measured and where (device, link or port, anything else), as the
/// sampler numbers them. Two readings with equal keys belong to the same series.
struct SeriesKey {
  std::uint32_t what = 0;
  std::uint32_t device = 0;
  std::uint32_t index = 0;
  std::uint32_t extra = 0;
  friend bool operator==(const SeriesKey&, const SeriesKey&) = default;
};

struct SeriesKeyHash {
  std::size_t operator()(const SeriesKey& k) const noexcept {
    std::uint64_t h = (static_cast<std::uint64_t>(k.what) << 32 | k.device) * 0x9e3779b97f4a7c15ULL;
    h ^= (static_cast<std::uint64_t>(k.index) << 32 | k.extra) + 0x7f4a7c159e3779b9ULL + (h << 6) + (h >> 2);
    return static_cast<std::size_t>(h);
  }
};

class FrameBuilder {
 public:
  /// Starts the frame of one sample: `key` carries its time and node (the node becomes label `node` of
  /// every series described from now on, unless label_node(false)).
  void begin(const CorrelationKey& key);
  /// Whether series get the label `node` (default true; the procfs sampler's host series never had it).
  void label_node(bool on) { label_node_ = on; }

  /// A reading of the series `key`. `describe()` returns its MetricSeries and runs only the first time.
  template <typename Describe>
  void gauge(const SeriesKey& key, double value, Describe&& describe) {
    const std::uint32_t s = slot(key, describe, false, false);
    values_[s] = value;
    ++stored_;
  }

  /// A reading of the cumulative counter `key`, read at `read_ns` (the host clock right after the read).
  /// From the second reading on it gives the rate `<name>` in `<unit>/s` and the change `<name>.delta`
  /// in `<unit>` of the series `describe()` returns; the first reading and the first after a reset give
  /// none (a reset never shows up as a spike); a wrap of a `width_bits` counter is counted across.
  /// `scale` converts the counter's units into the series' (4 for a count of 4-byte words in bytes).
  /// `width_bits` 0: not known, inferred as infer_counter_width() does from the last reading.
  template <typename Describe>
  CounterDelta counter(const SeriesKey& key, std::uint64_t value, unsigned width_bits, std::int64_t read_ns,
                       Describe&& describe, double scale = 1.0) {
    const std::uint32_t s = slot(key, describe, true, true);
    return update_counter(s, value, width_bits, read_ns, scale);
  }

  /// Like counter(), but only the rate, in the unit `describe()` gives (e.g. "bytes/s").
  template <typename Describe>
  CounterDelta rate(const SeriesKey& key, std::uint64_t value, unsigned width_bits, std::int64_t read_ns,
                    Describe&& describe, double scale = 1.0) {
    const std::uint32_t s = slot(key, describe, true, false);
    return update_counter(s, value, width_bits, read_ns, scale);
  }

  /// Forgets the last reading of counter `key` (its device went away, its process is another one now):
  /// the next reading primes it again.
  void reset_counter(const SeriesKey& key);

  /// The last reading of counter `key`, if it has one (for counters whose width is inferred).
  std::optional<std::uint64_t> previous_counter(const SeriesKey& key) const;

  /// The key begin() was given (time and node of this sample).
  const CorrelationKey& key() const { return key_; }

  /// Whether no value was stored since begin() (a first counter reading stores none).
  bool empty() const { return stored_ == 0; }

  /// The frame: the schema is shared with the previous frames until a new series shows up.
  MetricFrame finish();

  /// Forgets every series and counter (the sampler was restarted).
  void clear();

 private:
  struct Slot {
    SeriesKey key;
    bool counter = false;
    bool delta = false;  // a counter with a <name>.delta series after its rate
    bool primed = false;
    std::uint64_t last = 0;
    std::int64_t last_ns = 0;
  };

  template <typename Describe>
  std::uint32_t slot(const SeriesKey& key, Describe& describe, bool counter, bool delta) {
    if (cursor_ < slots_.size() && slots_[cursor_].key == key) return values_index(cursor_++);
    // Series left out of this sample (slow readings, a failed call) put the next one a few slots ahead.
    const std::size_t ahead = std::min(slots_.size(), cursor_ + 1 + kLookAhead);
    for (std::size_t i = cursor_ + 1; i < ahead; ++i)
      if (slots_[i].key == key) {
        cursor_ = i + 1;
        return values_index(i);
      }
    if (auto it = index_.find(key); it != index_.end()) {
      cursor_ = it->second + 1;
      return values_index(it->second);
    }
    return add_series(key, describe(), counter, delta);
  }
  std::uint32_t values_index(std::size_t slot) const { return first_value_[slot]; }
  static constexpr std::size_t kLookAhead = 16;  // slots past the expected one compared before hashing
  std::uint32_t add_series(const SeriesKey& key, MetricSeries series, bool counter, bool delta);
  CounterDelta update_counter(std::uint32_t value_index, std::uint64_t value, unsigned width_bits,
                              std::int64_t read_ns, double scale);

  CorrelationKey key_;
  std::vector<Slot> slots_;                   // by first appearance
  std::vector<std::uint32_t> first_value_;    // slot -> its (first) series in the schema
  std::vector<std::uint32_t> slot_of_value_;  // schema index -> slot
  std::unordered_map<SeriesKey, std::uint32_t, SeriesKeyHash> index_;
  std::vector<MetricSeries> series_;
  std::shared_ptr<const MetricSchema> schema_;
  bool schema_stale_ = true;
  bool label_node_ = true;
  std::vector<double> values_;
  std::size_t cursor_ = 0;
  std::size_t stored_ = 0;
};

}  // namespace cann_debug::plugins::sampler_support
