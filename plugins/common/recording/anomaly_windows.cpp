#include "recording/anomaly_windows.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::plugins::recording {

void AnomalyWindows::note(WindowSeries& p, TimestampNs ts, double value, double z, bool change) {
  p.last_ns = ts;
  ++p.anomalies;
  p.change_point = p.change_point || change;
  if (std::abs(z) >= std::abs(p.peak_z) || p.anomalies == 1) {
    p.peak_z = z;
    p.peak_value = value;
  }
}

void AnomalyWindows::settle(State& s) {
  s.has_reference = true;
  s.ref_level = s.baseline.mean_before();
  s.ref_scale = s.baseline.scale_before();
}

void AnomalyWindows::join(std::uint64_t series, State& s) {
  if (active_ == 0 && members_.empty()) {
    open_ = AnomalyWindow{};
    open_.id = next_id_++;
    open_.start_ns = s.candidate.first_ns;
  }
  s.candidate.series = series;
  parts_.push_back(s.candidate);
  s.part = parts_.size();
  members_.push_back(series);
  open_.start_ns = std::min(open_.start_ns, s.candidate.first_ns);
  open_.end_ns = std::max(open_.end_ns, s.candidate.last_ns);
  s.active = true;
  ++active_;
}

void AnomalyWindows::feed(std::uint64_t series, TimestampNs ts, double value,
                          std::vector<AnomalyWindow>& closed) {
  if (series >= states_.size()) states_.resize(series + 1);
  if (active_ > 0 && options_.max_duration_ns > 0 && ts - open_.start_ns >= options_.max_duration_ns)
    split(ts, closed);
  State& s = states_[series];
  using Verdict = SeriesBaseline::Verdict;
  const Verdict v = s.baseline.judge(value, options_.detector);
  const bool finite = std::isfinite(value);
  const double z = finite ? s.baseline.z() : 0.0;
  if (v == Verdict::kNormal) {
    ++s.since_outlier;
    if (s.active && s.since_outlier >= options_.quiet_values &&
        ts - parts_[s.part - 1].last_ns >= options_.quiet_ns) {
      s.active = false;
      settle(s);
      if (--active_ == 0) close(ts, "quiet", closed);
    } else if (!s.active && !s.pending && s.since_outlier >= options_.quiet_values &&
               s.baseline.count() > options_.detector.warmup) {
      settle(s);
    }
  } else {
    const int side = s.baseline.side();
    const bool sustained = v == Verdict::kChange ||
                           (s.had_outlier && s.since_outlier < options_.context && side == s.outlier_side);
    if (s.active) {
      note(parts_[s.part - 1], ts, value, z, v == Verdict::kChange);
      open_.end_ns = std::max(open_.end_ns, ts);
    } else if (s.pending) {
      note(s.candidate, ts, value, z, v == Verdict::kChange);
    } else if (sustained) {
      // A second outlier made it sustained: it started at the first, away from the level before the first.
      const bool from_first = v != Verdict::kChange && s.had_outlier;
      if (!s.has_reference) {
        s.has_reference = true;
        s.ref_level = from_first ? s.outlier_baseline : s.baseline.mean_before();
        s.ref_scale = from_first ? s.outlier_scale : s.baseline.scale_before();
      }
      s.pending = true;
      s.pending_level = s.ref_level;
      s.pending_scale = s.ref_scale;
      s.candidate = WindowSeries{};
      s.candidate.first_ns = from_first ? s.outlier_ns : ts;
      s.candidate.baseline = s.pending_level;
      if (from_first) s.candidate.anomalies = 1;
      note(s.candidate, ts, value, z, v == Verdict::kChange);
    }
    s.had_outlier = true;
    s.outlier_side = side;
    s.outlier_ns = ts;
    s.outlier_baseline = s.baseline.mean_before();
    s.outlier_scale = s.baseline.scale_before();
    s.since_outlier = 0;
  }
  if (s.pending && !s.active) {
    // Held away from the level it left for min_duration: it joins (or opens) the window. Back at that level
    // before then: a blip.
    const bool away = !finite || std::abs(value - s.pending_level) >= options_.away_z * s.pending_scale;
    if (!away) {
      s.pending = false;
    } else if (ts - s.candidate.first_ns >= options_.min_duration_ns) {
      s.pending = false;
      join(series, s);
    }
  }
}

void AnomalyWindows::split(TimestampNs ts, std::vector<AnomalyWindow>& closed) {
  // The series still anomalous carry on in the next window, from `ts`.
  std::vector<std::uint64_t> carried;
  for (auto id : members_)
    if (states_[id].active) carried.push_back(id);
  for (auto id : members_) states_[id].active = false;
  active_ = 0;
  close(ts, "max duration", closed);
  for (auto id : carried) {
    State& s = states_[id];
    s.candidate = WindowSeries{};
    s.candidate.first_ns = s.candidate.last_ns = ts;
    s.candidate.baseline = s.baseline.mean_before();
    join(id, s);
  }
}

void AnomalyWindows::finish(TimestampNs last_ns, std::vector<AnomalyWindow>& closed) {
  for (auto& s : states_) s.pending = false;  // never held for min_duration
  if (members_.empty()) return;
  for (auto id : members_)
    if (states_[id].active) states_[id].active = false;
  active_ = 0;
  close(last_ns, "end of input", closed);
}

void AnomalyWindows::close(TimestampNs ts, const char* why, std::vector<AnomalyWindow>& closed) {
  open_.closed_ns = ts;
  open_.closed_by = why;
  open_.series_total = parts_.size();
  // What moved first leads (the likelier cause; a |z| says little across series of different noise: a
  // thread count that sat at 1 has no noise at all), then the larger |z|.
  std::stable_sort(parts_.begin(), parts_.end(), [](const WindowSeries& a, const WindowSeries& b) {
    if (a.first_ns != b.first_ns) return a.first_ns < b.first_ns;
    return std::abs(a.peak_z) > std::abs(b.peak_z);
  });
  if (parts_.size() > options_.max_series_listed) parts_.resize(options_.max_series_listed);
  open_.series = std::move(parts_);
  parts_.clear();
  for (auto id : members_) states_[id].part = 0;
  members_.clear();
  closed.push_back(std::move(open_));
  open_ = AnomalyWindow{};
}

}  // namespace cann_debug::plugins::recording
