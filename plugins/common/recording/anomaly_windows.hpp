// Anomaly windows over many series, marked online (`collect`, `diagnose --follow`): a window opens when a
// series has held an anomaly for a while and closes once every series in it has been quiet again, so a
// throttled device, a filling memory and the workload's slowdown they cause make one window, not three.
//
// Per series, values are judged by its SeriesBaseline (recording/change_detector.hpp). An anomaly is
// sustained, as in retention, when it is a change point or the second anomalous value on the same side
// within `context` values of the previous one; it is then pending: it opens (or joins) a window only once the
// series has stayed away from the level it left (beyond `away_z` times that level's scale) for
// `min_duration`. A blip back to the old level cancels it (and its return is no incident either: "old level"
// is the one the series last settled at), so the 10 ms quantisation of host counters (a
// run queue of 1 then 2, a CPU busy for one tick) and single wild readings open nothing. A series in a window
// is quiet again when at least `quiet_values` normal values and `quiet` time have passed since its last
// anomalous value; the window closes with the value that made its last series quiet, after `max_duration`
// (the series still anomalous go on in a new window), or at the end of the input.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "recording/change_detector.hpp"
#include "recording/recording_format.hpp"

namespace cann_debug::plugins::recording {

struct WindowOptions {
  /// Windows judge with a clipped CUSUM and relearn a series' noise after a change point (see
  /// DetectorOptions): a workload starting or stopping is one change, not a window that never closes.
  DetectorOptions detector{.cusum_z_clip = 6.0, .restart_on_change = true};
  std::size_t context = 5;
  std::int64_t min_duration_ns = 200'000'000;
  double away_z = 6.0;
  std::int64_t quiet_ns = 500'000'000;
  std::size_t quiet_values = 3;
  std::size_t max_series_listed = 8;  // the series a window names: the first to move first, then by |z|
  /// A window still open this long after it opened closes ("max duration") and the series still
  /// anomalous go on in a new one: a long incident is diagnosed while it lasts (0 = no limit).
  std::int64_t max_duration_ns = 30'000'000'000LL;
};

/// One series' part in a window.
struct WindowSeries {
  std::uint64_t series = 0;
  TimestampNs first_ns = 0, last_ns = 0;  // its first and last anomalous value
  double baseline = 0;                    // the level it left (the baseline before its first anomaly)
  double peak_value = 0;                  // the value of its largest |z|
  double peak_z = 0;
  std::uint64_t anomalies = 0;
  bool change_point = false;  // it settled at a new level (a CUSUM alarm), not only spiked
};

struct AnomalyWindow {
  std::uint64_t id = 0;  // 1, 2, ... in order of opening
  TimestampNs start_ns = 0;
  TimestampNs end_ns = 0;     // its last anomalous value
  TimestampNs closed_ns = 0;  // the value that closed it (or the last one seen)
  std::string closed_by;      // "quiet", "max duration" or "end of input"
  std::size_t series_total = 0;
  std::vector<WindowSeries> series;  // at most max_series_listed: the first to move first, then largest |z|
};

class AnomalyWindows {
 public:
  explicit AnomalyWindows(WindowOptions options = {}) : options_(options) {}

  /// Judges one value; a window it closes is appended to `closed`.
  void feed(std::uint64_t series, TimestampNs ts, double value, std::vector<AnomalyWindow>& closed);
  /// The input ended at `last_ns`: an open window closes there.
  void finish(TimestampNs last_ns, std::vector<AnomalyWindow>& closed);
  bool window_open() const { return active_ > 0; }
  std::uint64_t windows_opened() const { return next_id_ - 1; }

 private:
  struct State {
    SeriesBaseline baseline;
    bool had_outlier = false;
    int outlier_side = 0;
    TimestampNs outlier_ns = 0;
    double outlier_baseline = 0, outlier_scale = 0;
    bool pending = false;  // a sustained anomaly not yet held for min_duration
    double pending_level = 0, pending_scale = 0;
    // The level the series last settled at (and its scale): what "away" is measured from. Kept through a
    // blip, so the return from an excursion too short to count is not an incident of its own.
    bool has_reference = false;
    double ref_level = 0, ref_scale = 0;
    WindowSeries candidate;  // what it adds to a window once confirmed
    std::size_t since_outlier = 0;  // normal values since the last anomalous one
    bool active = false;            // part of the open window and not quiet yet
    std::size_t part = 0;           // index + 1 in parts_ (0: not in the open window)
  };

  void close(TimestampNs ts, const char* why, std::vector<AnomalyWindow>& closed);
  void join(std::uint64_t series, State& s);
  static void settle(State& s);
  static void note(WindowSeries& p, TimestampNs ts, double value, double z, bool change);
  void split(TimestampNs ts, std::vector<AnomalyWindow>& closed);

  WindowOptions options_;
  std::vector<State> states_;
  std::size_t active_ = 0;
  AnomalyWindow open_;
  std::vector<WindowSeries> parts_;
  std::vector<std::uint64_t> members_;  // series with part != 0
  std::uint64_t next_id_ = 1;
};

}  // namespace cann_debug::plugins::recording
