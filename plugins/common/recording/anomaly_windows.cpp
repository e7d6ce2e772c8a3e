#include "recording/anomaly_windows.hpp"

#include <algorithm>
#include <cmath>

namespace cann_debug::plugins::recording {

void AnomalyWindows::feed(std::uint64_t series, TimestampNs ts, double value,
                          std::vector<AnomalyWindow>& closed) {
  if (series >= states_.size()) states_.resize(series + 1);
  if (active_ > 0 && options_.max_duration_ns > 0 && ts - open_.start_ns >= options_.max_duration_ns)
    split(ts, closed);
  State& s = states_[series];
  using Verdict = SeriesBaseline::Verdict;
  const Verdict v = s.baseline.judge(value, options_.detector);
  if (v == Verdict::kNormal) {
    ++s.since_outlier;
    if (s.active && s.since_outlier >= options_.quiet_values &&
        ts - parts_[s.part - 1].last_ns >= options_.quiet_ns) {
      s.active = false;
      if (--active_ == 0) close(ts, "quiet", closed);
    }
    return;
  }
  const int side = s.baseline.side();
  const bool sustained = v == Verdict::kChange ||
                         (s.had_outlier && s.since_outlier < options_.context && side == s.outlier_side);
  const double z = std::isfinite(value) ? s.baseline.z() : 0.0;
  if (sustained || s.active) {
    if (active_ == 0 && members_.empty()) {
      open_ = AnomalyWindow{};
      open_.id = next_id_++;
      open_.start_ns = ts;
    }
    if (s.part == 0) {
      WindowSeries p;
      p.series = series;
      // A second outlier made it sustained: the window starts at the first.
      const bool from_first = v != Verdict::kChange && s.had_outlier;
      p.first_ns = from_first ? s.outlier_ns : ts;
      p.baseline = from_first ? s.outlier_baseline : s.baseline.mean_before();
      p.anomalies = from_first ? 1 : 0;
      parts_.push_back(p);
      s.part = parts_.size();
      members_.push_back(series);
      open_.start_ns = std::min(open_.start_ns, p.first_ns);
    }
    WindowSeries& p = parts_[s.part - 1];
    if (!s.active) {
      s.active = true;
      ++active_;
    }
    p.last_ns = ts;
    ++p.anomalies;
    p.change_point = p.change_point || v == Verdict::kChange;
    if (std::abs(z) >= std::abs(p.peak_z) || p.anomalies == 1) {
      p.peak_z = z;
      p.peak_value = value;
    }
    open_.end_ns = std::max(open_.end_ns, ts);
  }
  s.had_outlier = true;
  s.outlier_side = side;
  s.outlier_ns = ts;
  s.outlier_baseline = s.baseline.mean_before();
  s.since_outlier = 0;
}

void AnomalyWindows::split(TimestampNs ts, std::vector<AnomalyWindow>& closed) {
  // The series still anomalous carry on in the next window, from `ts`.
  std::vector<std::uint64_t> carried;
  for (auto id : members_)
    if (states_[id].active) carried.push_back(id);
  for (auto id : members_) states_[id].active = false;
  active_ = 0;
  close(ts, "max duration", closed);
  open_.id = next_id_++;
  open_.start_ns = ts;
  for (auto id : carried) {
    WindowSeries p;
    p.series = id;
    p.first_ns = p.last_ns = ts;
    p.baseline = states_[id].baseline.mean_before();
    parts_.push_back(p);
    states_[id].part = parts_.size();
    states_[id].active = true;
    members_.push_back(id);
    ++active_;
  }
  open_.end_ns = ts;
}

void AnomalyWindows::finish(TimestampNs last_ns, std::vector<AnomalyWindow>& closed) {
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
  std::stable_sort(parts_.begin(), parts_.end(), [](const WindowSeries& a, const WindowSeries& b) {
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
