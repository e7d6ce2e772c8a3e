// Anomaly-window retention (`collect --compress`): every series is watched online; values around an
// anomaly are kept at full resolution, everything else is downsampled into summaries (mean, min, max,
// count per period).
//
// Each value is judged by the series' SeriesBaseline (recording/change_detector.hpp: a robust z-score and a
// CUSUM of it). A value with |z| >= z_threshold, or a CUSUM alarm, is anomalous and kept at full resolution
// with context:
//   - an isolated outlier (sampling jitter, one slow read) keeps `context` values on each side;
//   - a sustained anomaly (a second anomalous value on the same side within that context, or a change point;
//     a high value next to a low one is sampling jitter) keeps the `pre`
//     values before it (held in a ring) and the `post` values after the last anomalous one.
#pragma once

#include <cstdint>
#include <vector>

#include "recording/change_detector.hpp"
#include "recording/recording_format.hpp"

namespace cann_debug::plugins::recording {

struct RetentionOptions {
  double z_threshold = 6.0;
  std::size_t pre = 50;     // full-resolution values kept before a sustained anomaly
  std::size_t post = 50;    // ... and after its last anomalous value
  std::size_t context = 5;  // values kept on each side of an isolated outlier
  std::int64_t summary_period_ns = 2'000'000'000;
  std::size_t warmup = 20;  // values that only train the baseline
  double alpha = 0.05;      // EWMA weight of a new value
  double cusum_k = 0.5, cusum_h = 12.0;
  double rel_floor = 0.01;  // s >= rel_floor * |m|

  DetectorOptions detector() const {
    return {.z_threshold = z_threshold,
            .warmup = warmup,
            .alpha = alpha,
            .cusum_k = cusum_k,
            .cusum_h = cusum_h,
            .rel_floor = rel_floor};
  }
};

/// Where retention sends its decisions.
class RetentionSink {
 public:
  virtual ~RetentionSink() = default;
  virtual void keep(std::uint64_t series, TimestampNs ts, double value) = 0;
  virtual void summary(const Summary& s) = 0;
};

struct RetentionTotals {
  std::uint64_t seen = 0;        // values fed
  std::uint64_t kept = 0;        // values kept at full resolution
  std::uint64_t summarised = 0;  // values folded into summaries
  std::uint64_t anomalies = 0;   // anomalous values (z or change point)
  double retained_share() const { return seen ? static_cast<double>(kept) / static_cast<double>(seen) : 0.0; }
};

class AnomalyRetention {
 public:
  explicit AnomalyRetention(RetentionOptions options = {})
      : options_(options), detector_(options.detector()) {}

  void feed(std::uint64_t series, TimestampNs ts, double value, RetentionSink& out);
  /// End of the recording: held values go out (kept if inside a post window, summarised otherwise).
  void finish(RetentionSink& out);
  const RetentionTotals& totals() const { return totals_; }

 private:
  struct Value {
    TimestampNs ts;
    double value;
  };
  /// The last values of a series, oldest first, in storage allocated once: a std::deque here freed and
  /// allocated blocks at every sample, which fragmented the heap (RSS grew ~100 KiB/min at 10 ms).
  class Ring {
   public:
    std::size_t size() const { return size_; }
    const Value& at(std::size_t i) const { return slots_[(head_ + i) % slots_.size()]; }  // 0 = oldest
    const Value& front() const { return at(0); }
    void push_back(const Value& v, std::size_t capacity) {
      if (slots_.size() < capacity) grow(capacity);
      slots_[(head_ + size_) % slots_.size()] = v;
      ++size_;
    }
    void pop_front() {
      head_ = (head_ + 1) % slots_.size();
      --size_;
    }
    void drop_newest(std::size_t n) { size_ -= n; }
    void clear() { head_ = size_ = 0; }

   private:
    void grow(std::size_t capacity) {
      std::vector<Value> slots(capacity);
      for (std::size_t i = 0; i < size_; ++i) slots[i] = at(i);
      slots_ = std::move(slots);
      head_ = 0;
    }
    std::vector<Value> slots_;
    std::size_t head_ = 0, size_ = 0;
  };
  struct Bucket {
    TimestampNs start = 0, end = 0;
    std::uint64_t count = 0;
    double sum = 0, min = 0, max = 0;
  };
  struct State {
    SeriesBaseline baseline;
    std::size_t post_left = 0;
    int anomaly_side = 0;  // sign of the last anomalous value's deviation
    Ring ring;
    Bucket bucket;
  };

  void keep_ring(std::uint64_t series, State& s, std::size_t newest, RetentionSink& out);
  void summarise(std::uint64_t series, State& s, const Value& v, RetentionSink& out);
  void close_bucket(std::uint64_t series, State& s, RetentionSink& out);

  RetentionOptions options_;
  DetectorOptions detector_;
  std::vector<State> states_;
  RetentionTotals totals_;
};

}  // namespace cann_debug::plugins::recording
