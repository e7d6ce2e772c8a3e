// The join of two inputs (a = 0, b = 1) by step id, or by time window, with bounded memory.
//
// Which key: mode step joins by step id, mode time by time window; mode auto joins by step once both
// inputs have carried step ids, else by time (a training log with steps and host metrics without them meet
// in time windows). Until that is known, auto keeps an item in both tables (each bounded).
// Step join: a step is complete once both inputs have data for it and both have moved past it (each
// input's steps arrive in order); its row is emitted then. Steps more than max_pending_steps behind the
// newest step seen are closed: emitted when both inputs have them, else evicted (counted, dropped).
// Time join: windows [k*window, (k+1)*window); a window closes once an item `lateness` past its end was
// seen: emitted when both inputs have data in it, else evicted. At most max_pending_steps windows are
// held; the oldest is closed first. Items for closed keys are counted as late and dropped; items with
// neither step nor time (or, in auto mode joined by step, items without a step) are counted as unkeyed.
// flush() emits every key still held (complete=false when an input is missing) and a summary.
#pragma once

#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/messages.hpp"
#include "side_summary.hpp"

namespace cann_debug::plugins::correlate {

enum class Mode { kAuto, kStep, kTime };

struct JoinOptions {
  Mode mode = Mode::kAuto;
  std::int64_t window_ns = 1'000'000'000;
  std::int64_t max_pending_steps = 64;
  std::int64_t lateness_ns = 5'000'000'000;
  std::size_t max_records_per_key = 256;
};

struct JoinCounts {
  std::size_t joined = 0;      // rows emitted with both inputs
  std::size_t evicted = 0;     // keys dropped with one input only
  std::size_t late = 0;        // items for keys already closed
  std::size_t unkeyed = 0;     // items with neither step nor time (or of the wrong kind for the mode)
  std::size_t incomplete = 0;  // keys emitted at flush with one input only
};

/// A joined row ready to go out: its JSON and the key of its envelope.
struct Row {
  CorrelationKey key;
  nlohmann::json value;
};

class JoinState {
 public:
  explicit JoinState(JoinOptions options) : options_(options) {}

  void add(int side, const Record& r);
  void add(int side, const MetricPoint& p);
  void add(int side, const Event& e);

  /// Rows of the keys that completed or were closed since the last call.
  std::vector<Row> take_ready();
  /// Every key still held, then the summary row.
  std::vector<Row> flush();

  const JoinCounts& counts() const { return counts_; }
  std::size_t pending() const { return steps_.size() + windows_.size(); }

 private:
  struct Pending {
    SideSummary side[2];
    std::size_t stepless = 0;  // items without a step id (windows only)
    bool both() const { return !side[0].empty() && !side[1].empty(); }
  };
  bool step_join() const;  // both inputs are joined by step
  bool time_join() const;  // both inputs are joined by time window
  template <typename Item>
  void add_item(int side, const CorrelationKey& key, TimestampNs time, const Item& item);
  template <typename Item>
  static void put(SideSummary& s, const Item& item, std::size_t max_records);

  void close_steps();
  void close_windows();
  void emit_step(std::int64_t step, Pending& p, bool complete);
  void emit_window(std::int64_t window, Pending& p, bool complete);
  void evicted(const std::string& what);

  JoinOptions options_;
  JoinCounts counts_;
  std::map<std::int64_t, Pending> steps_;
  std::map<std::int64_t, Pending> windows_;
  std::set<std::int64_t> closed_steps_;  // closed and not yet below the floor
  std::int64_t step_floor_ = INT64_MIN;  // steps below are closed
  std::int64_t newest_step_ = -1;
  std::int64_t side_step_[2] = {-1, -1};
  bool side_has_step_[2] = {false, false};
  std::int64_t window_floor_ = INT64_MIN;  // windows below are closed
  TimestampNs newest_time_ = kNoTimestamp;
  std::vector<Row> ready_;
  std::vector<std::string> evicted_keys_;  // the first few, for the summary
};

}  // namespace cann_debug::plugins::correlate
