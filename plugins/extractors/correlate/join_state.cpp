#include "join_state.hpp"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

namespace cann_debug::plugins::correlate {
namespace {

constexpr std::size_t kEvictedKeysKept = 32;

std::int64_t floor_div(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}

// a * b, saturated to the int64 range.
std::int64_t mul_sat(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return (a < 0) != (b < 0) ? INT64_MIN : INT64_MAX;
  return r;
}

}  // namespace

template <typename Item>
void JoinState::put(SideSummary& s, const Item& item, std::size_t max_records) {
  if constexpr (std::is_same_v<Item, Record>)
    s.add(item, max_records);
  else
    s.add(item);
}

bool JoinState::step_join() const {
  return options_.mode == Mode::kStep ||
         (options_.mode == Mode::kAuto && side_has_step_[0] && side_has_step_[1]);
}

bool JoinState::time_join() const {
  return options_.mode == Mode::kTime || (options_.mode == Mode::kAuto && !step_join());
}

template <typename Item>
void JoinState::add_item(int side, const CorrelationKey& key, TimestampNs time, const Item& item) {
  const bool has_step = key.step_id >= 0 && options_.mode != Mode::kTime;
  const bool has_time = time != kNoTimestamp && options_.mode != Mode::kStep;
  bool keyed = false;
  if (has_step) {
    keyed = true;
    side_has_step_[side] = true;
    const std::int64_t step = key.step_id;
    if (step < step_floor_ || closed_steps_.contains(step)) {
      ++counts_.late;
    } else {
      put(steps_[step].side[side], item, options_.max_records_per_key);
      side_step_[side] = std::max(side_step_[side], step);
      newest_step_ = std::max(newest_step_, step);
      close_steps();
    }
  }
  // In auto mode an item with a step also goes to the windows until both inputs are known to carry steps.
  if (has_time && (!has_step || !step_join())) {
    const std::int64_t window = floor_div(time, options_.window_ns);
    if (window < window_floor_) {
      if (!keyed) ++counts_.late;
    } else {
      Pending& p = windows_[window];
      put(p.side[side], item, options_.max_records_per_key);
      if (!has_step) ++p.stepless;
      if (newest_time_ == kNoTimestamp || time > newest_time_) newest_time_ = time;
      close_windows();
    }
    keyed = true;
  }
  if (!keyed) ++counts_.unkeyed;
}

void JoinState::add(int side, const Record& r) {
  add_item(side, r.key, r.key.timestamp_ns, r);
}
void JoinState::add(int side, const MetricPoint& p) {
  add_item(side, p.key, p.key.timestamp_ns, p);
}
void JoinState::add(int side, const Event& e) {
  add_item(side, e.key, e.start_ns != kNoTimestamp ? e.start_ns : e.key.timestamp_ns, e);
}

void JoinState::evicted(const std::string& what) {
  ++counts_.evicted;
  if (evicted_keys_.size() < kEvictedKeysKept) evicted_keys_.push_back(what);
}

void JoinState::close_steps() {
  const std::int64_t passed =
      std::min(side_step_[0], side_step_[1]);  // both inputs are beyond the steps below
  step_floor_ = newest_step_ - options_.max_pending_steps;
  for (auto it = steps_.begin(); it != steps_.end();) {
    const std::int64_t step = it->first;
    const bool old = step < step_floor_;
    if (!old && step >= passed) break;  // neither complete nor old, and so are all later steps
    if (it->second.both()) {
      emit_step(step, it->second, true);
    } else if (old) {
      if (step_join()) evicted(fmt::format("step {}", step));  // else its items were joined by time
    } else {
      ++it;  // one input skipped it so far; it may still come until the step gets old
      continue;
    }
    closed_steps_.insert(step);
    it = steps_.erase(it);
  }
  closed_steps_.erase(closed_steps_.begin(), closed_steps_.lower_bound(step_floor_));
}

void JoinState::close_windows() {
  for (auto it = windows_.begin(); it != windows_.end();) {
    const std::int64_t window = it->first;
    const std::int64_t end_ns = mul_sat(window + 1, options_.window_ns);
    std::int64_t horizon = 0;  // newest time minus lateness
    if (__builtin_sub_overflow(newest_time_, options_.lateness_ns, &horizon)) horizon = INT64_MIN;
    const bool due = horizon >= end_ns;
    const bool over = windows_.size() > static_cast<std::size_t>(options_.max_pending_steps);
    if (!due && !over) break;  // later windows close later
    if (!time_join())
      counts_.unkeyed += it->second.stepless;  // the inputs are joined by step: items without one are not
    else if (it->second.both())
      emit_window(window, it->second, true);
    else
      evicted(fmt::format("window {}", mul_sat(window, options_.window_ns)));
    window_floor_ = window + 1;
    it = windows_.erase(it);
  }
}

void JoinState::emit_step(std::int64_t step, Pending& p, bool complete) {
  (complete ? counts_.joined : counts_.incomplete)++;
  Row row;
  row.key.step_id = step;
  row.value = {{"kind", "step"},           {"step", step},
               {"complete", complete},     {"a", p.side[0].to_json()},
               {"b", p.side[1].to_json()}, {"evicted_so_far", counts_.evicted}};
  ready_.push_back(std::move(row));
}

void JoinState::emit_window(std::int64_t window, Pending& p, bool complete) {
  (complete ? counts_.joined : counts_.incomplete)++;
  Row row;
  row.key.timestamp_ns = mul_sat(window, options_.window_ns);
  row.value = {{"kind", "window"},
               {"start_ns", row.key.timestamp_ns},
               {"end_ns", mul_sat(window + 1, options_.window_ns)},
               {"complete", complete},
               {"a", p.side[0].to_json()},
               {"b", p.side[1].to_json()},
               {"evicted_so_far", counts_.evicted}};
  ready_.push_back(std::move(row));
}

std::vector<Row> JoinState::take_ready() {
  std::vector<Row> out;
  out.swap(ready_);
  return out;
}

std::vector<Row> JoinState::flush() {
  if (step_join())
    for (auto& [step, p] : steps_) emit_step(step, p, p.both());
  for (auto& [window, p] : windows_) {
    if (time_join())
      emit_window(window, p, p.both());
    else
      counts_.unkeyed += p.stepless;
  }
  steps_.clear();
  windows_.clear();
  Row summary;
  summary.value = {{"kind", "summary"},
                   {"joined", counts_.joined},
                   {"incomplete_at_flush", counts_.incomplete},
                   {"evicted", counts_.evicted},
                   {"evicted_keys", evicted_keys_},
                   {"late", counts_.late},
                   {"unkeyed", counts_.unkeyed},
                   {"max_pending_steps", options_.max_pending_steps},
                   {"window_ns", options_.window_ns},
                   {"lateness_ns", options_.lateness_ns}};
  ready_.push_back(std::move(summary));
  return take_ready();
}

}  // namespace cann_debug::plugins::correlate
