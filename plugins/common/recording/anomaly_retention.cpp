#include "recording/anomaly_retention.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::plugins::recording {

AnomalyRetention::Verdict AnomalyRetention::judge(State& s, double x) {
  if (!std::isfinite(x)) {
    s.side = 0;
    return Verdict::kOutlier;  // NaN/Inf readings are always worth keeping
  }
  ++s.n;
  if (s.n == 1) {
    s.mean = x;
    s.dev = 0;
    return Verdict::kNormal;
  }
  const double scale = std::max({1.2533 * s.dev, options_.rel_floor * std::abs(s.mean), 1e-12});
  const double z = (x - s.mean) / scale;
  s.side = z > 0 ? 1 : -1;
  bool alarm = s.n > options_.warmup && std::abs(z) >= options_.z_threshold;
  if (s.n > options_.warmup) {
    s.cusum_pos = std::max(0.0, s.cusum_pos + z - options_.cusum_k);
    s.cusum_neg = std::max(0.0, s.cusum_neg - z - options_.cusum_k);
    if (s.cusum_pos > options_.cusum_h || s.cusum_neg > options_.cusum_h) {
      s.mean = x;  // a new level: restart the baseline there
      s.cusum_pos = s.cusum_neg = 0;
      return Verdict::kChange;
    }
  }
  // Huber update: the mean follows the value clipped to mean +- 3 scale, so one spike moves the baseline
  // little; the deviation follows it clipped at the alarm threshold, so a series whose noise has heavy
  // tails (counter deltas under sampling jitter) widens its own scale instead of alarming on every tail.
  const double a = s.n <= options_.warmup ? 1.0 / static_cast<double>(s.n) : options_.alpha;
  s.dev += a * (std::min(std::abs(x - s.mean), options_.z_threshold * scale) - s.dev);
  s.mean += a * (std::clamp(x, s.mean - 3 * scale, s.mean + 3 * scale) - s.mean);
  return alarm ? Verdict::kOutlier : Verdict::kNormal;
}

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
  if (const Verdict v = judge(s, value); v != Verdict::kNormal) {
    ++totals_.anomalies;
    close_bucket(series, s, out);
    // Sustained: a change point, or a second anomaly on the same side within the context of the previous
    // one. A high value next to a low one is jitter (a late poll followed by an early one), not an incident.
    const bool sustained = v == Verdict::kChange || (s.post_left > 0 && s.side == s.anomaly_side);
    s.anomaly_side = s.side;
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
