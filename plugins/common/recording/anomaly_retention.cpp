#include "recording/anomaly_retention.hpp"

#include <algorithm>

namespace cann_debug::plugins::recording {

void AnomalyRetention::keep_ring(std::uint64_t series, State& s, std::size_t newest, RetentionSink& out) {
  // The newest `newest` values of the ring, oldest first; older ones stay (a later sustained anomaly may
  // still want them, otherwise they are summarised in turn).
  const std::size_t n = std::min(newest, s.ring.size());
  for (std::size_t i = s.ring.size() - n; i < s.ring.size(); ++i)
    out.keep(series, s.ring.at(i).ts, s.ring.at(i).value);
  s.ring.drop_newest(n);
  totals_.kept += n;
}

void AnomalyRetention::feed(std::uint64_t series, TimestampNs ts, double value, RetentionSink& out) {
  if (series >= states_.size()) states_.resize(series + 1);
  State& s = states_[series];
  ++totals_.seen;
  using Verdict = SeriesBaseline::Verdict;
  if (const Verdict v = s.baseline.judge(value, detector_); v != Verdict::kNormal) {
    ++totals_.anomalies;
    close_bucket(series, s, out);
    // Sustained: a change point, or a second anomaly on the same side within the context of the previous
    // one. A high value next to a low one is jitter (a late poll followed by an early one), not an incident.
    const int side = s.baseline.side();
    const bool sustained = v == Verdict::kChange || (s.post_left > 0 && side == s.anomaly_side);
    s.anomaly_side = side;
    keep_ring(series, s, sustained ? s.ring.size() : options_.context, out);
    out.keep(series, ts, value);
    ++totals_.kept;
    s.post_left = sustained ? options_.post : options_.context;
    return;
  }
  if (s.post_left > 0) {
    --s.post_left;
    out.keep(series, ts, value);
    ++totals_.kept;
    return;
  }
  s.ring.push_back({ts, value}, options_.pre + 1);
  if (s.ring.size() > options_.pre) {
    summarise(series, s, s.ring.front(), out);
    s.ring.pop_front();
  }
}

void AnomalyRetention::summarise(std::uint64_t series, State& s, const Value& v, RetentionSink& out) {
  Bucket& b = s.bucket;
  if (b.count > 0 && v.ts - b.start >= options_.summary_period_ns) close_bucket(series, s, out);
  if (b.count == 0) {
    b.start = v.ts;
    b.min = b.max = v.value;
  }
  b.end = v.ts;
  ++b.count;
  b.sum += v.value;
  b.min = std::min(b.min, v.value);
  b.max = std::max(b.max, v.value);
  ++totals_.summarised;
}

void AnomalyRetention::close_bucket(std::uint64_t series, State& s, RetentionSink& out) {
  Bucket& b = s.bucket;
  if (b.count == 0) return;
  out.summary(Summary{series, b.start, b.end, b.count, b.sum / static_cast<double>(b.count), b.min, b.max});
  b = Bucket{};
}

void AnomalyRetention::finish(RetentionSink& out) {
  for (std::uint64_t id = 0; id < states_.size(); ++id) {
    State& s = states_[id];
    for (std::size_t i = 0; i < s.ring.size(); ++i) summarise(id, s, s.ring.at(i), out);
    s.ring.clear();
    close_bucket(id, s, out);
  }
}

}  // namespace cann_debug::plugins::recording
