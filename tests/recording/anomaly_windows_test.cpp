// Anomaly windows marked online over many series: what `diagnose --follow` and `collect --diagnose`
// diagnose. A window opens at a sustained anomaly, spans the series that overlap it, closes when they are all
// quiet again, and steady noise, single wild readings and a series going from idle to busy open nothing
// that stays open; an anomaly must hold for min_duration.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "recording/anomaly_windows.hpp"
#include "test_noise.hpp"

using namespace cann_debug;
using namespace cann_debug::plugins::recording;

namespace {

constexpr TimestampNs kT0 = 1'764'000'000'000'000'000;
constexpr std::int64_t kTick = 10'000'000;  // 10 ms

using cann_debug::testing::noise;

TimestampNs at(int i) {
  return kT0 + i * kTick;
}

/// Feeds `n` samples of `series` values value(s, i) for every series, in time order; returns the windows.
template <typename F>
std::vector<AnomalyWindow> run(int n, int series, F value, WindowOptions o = {}, bool finish = true) {
  AnomalyWindows w(o);
  std::vector<AnomalyWindow> closed;
  for (int i = 0; i < n; ++i)
    for (int s = 0; s < series; ++s) w.feed(static_cast<std::uint64_t>(s), at(i), value(s, i), closed);
  if (finish) w.finish(at(n - 1), closed);
  return closed;
}

double steady(int s, int i) {
  return 100.0 * (s + 1) * (1.0 + 0.02 * noise(static_cast<std::uint64_t>(i), s));
}

TEST(AnomalyWindows, SteadyNoiseOpensNothing) {
  EXPECT_TRUE(run(6000, 4, steady).empty());
}

TEST(AnomalyWindows, ALevelShiftOpensAWindowThatClosesOnceTheSeriesIsQuietAgain) {
  // Series 1 drops to 60% from sample 1000 to 1300 (a throttled clock), then recovers.
  auto value = [](int s, int i) { return steady(s, i) * (s == 1 && i >= 1000 && i < 1300 ? 0.6 : 1.0); };
  const auto windows = run(3000, 3, value);
  ASSERT_EQ(windows.size(), 2u);  // the drop, and the recovery
  const AnomalyWindow& drop = windows[0];
  EXPECT_EQ(drop.closed_by, "quiet");
  ASSERT_EQ(drop.series.size(), 1u);
  EXPECT_EQ(drop.series[0].series, 1u);
  EXPECT_TRUE(drop.series[0].change_point);
  EXPECT_LT(drop.series[0].peak_z, 0);
  EXPECT_NEAR(drop.series[0].baseline, 200.0, 10.0);
  // It starts within three samples of the drop (a change point needs three values in a row) and closes at
  // least `quiet` (500 ms) after its last anomalous value.
  EXPECT_GE(drop.start_ns, at(1000));
  EXPECT_LE(drop.start_ns, at(1003));
  EXPECT_GE(drop.closed_ns - drop.end_ns, 500'000'000);
  EXPECT_LT(drop.closed_ns,
            at(1300));  // closed while the level stayed low: the change was news, not the level
  EXPECT_GE(windows[1].start_ns, at(1300));
  EXPECT_LE(windows[1].start_ns, at(1303));
  EXPECT_GT(windows[1].series[0].peak_z, 0);
}

TEST(AnomalyWindows, SeriesThatOverlapMakeOneWindow) {
  // Temperature rises at 1000, the clock drops at 1020 and power at 1040: one incident.
  auto value = [](int s, int i) {
    const double v = steady(s, i);
    if (s == 0 && i >= 1000) return v * 1.5;
    if (s == 1 && i >= 1020) return v * 0.6;
    if (s == 2 && i >= 1040) return v * 0.7;
    return v;
  };
  const auto windows = run(2000, 4, value);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].series_total, 3u);
  EXPECT_GE(windows[0].start_ns, at(1000));
  EXPECT_LE(windows[0].start_ns, at(1003));
  EXPECT_GE(windows[0].end_ns, at(1040));
}

TEST(AnomalyWindows, WildReadingsAndBlipsOpenNothing) {
  // Single wild readings, two on the same side, and a run queue of 1 that reads 2 for 50 ms (10 ms ticks):
  // each is back at its level before min_duration (200 ms).
  auto value = [](int s, int i) {
    const double v = steady(s, i);
    if (s == 0 && (i == 700 || i == 1500 || i == 2000 || i == 2002)) return v * 5.0;
    if (s == 1) return (i >= 1200 && i < 1205) || (i >= 2500 && i < 2505) ? 2.0 : 1.0;
    return v;
  };
  EXPECT_TRUE(run(3000, 2, value).empty());
}

TEST(AnomalyWindows, AnAnomalyHeldForMinDurationOpensAWindowFromItsOnset) {
  // Elevated for 300 ms (30 values) from 700.
  auto value = [](int s, int i) { return steady(s, i) * (s == 0 && i >= 700 && i < 730 ? 5.0 : 1.0); };
  const auto windows = run(3000, 2, value);
  ASSERT_GE(windows.size(), 1u);
  EXPECT_GE(windows[0].start_ns, at(700));
  EXPECT_LE(windows[0].start_ns, at(703));
  EXPECT_GT(windows[0].series[0].peak_value, steady(0, 700) * 4.0);
  // 250 ms is not enough when min_duration is 300 ms.
  WindowOptions o;
  o.min_duration_ns = 350'000'000;
  EXPECT_TRUE(run(3000, 2, value, o).empty());
}

TEST(AnomalyWindows, AnIdleSeriesTurningBusyIsOneShortWindow) {
  // A process' CPU: exactly 0 while idle, then 0..1 at 10 ms granularity once it works. Without relearning
  // the noise after the change point every busy value would be an anomaly and the window would never close.
  auto value = [](int, int i) {
    if (i < 500) return 0.0;
    return noise(static_cast<std::uint64_t>(i), 9) > -0.3 ? 1.0 : 0.5;
  };
  const auto windows = run(6000, 1, value);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].closed_by, "quiet");
  EXPECT_LT(windows[0].closed_ns - windows[0].start_ns, 2'000'000'000);
}

TEST(AnomalyWindows, AWindowStillOpenAtTheEndClosesThere) {
  auto value = [](int s, int i) { return steady(s, i) * (i >= 950 ? 0.5 : 1.0); };
  const auto windows = run(1000, 1, value);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].closed_by, "end of input");
  EXPECT_EQ(windows[0].closed_ns, at(999));
}

TEST(AnomalyWindows, ALongIncidentIsSplitAtMaxDuration) {
  // A clock that hunts from 1000 on: 400 ms at its level, 400 ms at 60% of it, for 30 s. The series never
  // stays quiet for 500 ms, so the incident lasts as long as the hunting.
  auto value = [](int, int i) { return steady(0, i) * (i >= 1000 && (i - 1000) / 40 % 2 == 0 ? 0.6 : 1.0); };
  WindowOptions o;
  o.max_duration_ns = 5'000'000'000;  // 5 s
  const auto windows = run(4000, 1, value, o);
  ASSERT_GE(windows.size(), 5u);
  EXPECT_EQ(windows[0].closed_by, "max duration");
  EXPECT_EQ(windows[0].closed_ns - windows[0].start_ns, 5'000'000'000);
  EXPECT_EQ(windows[1].start_ns, windows[0].closed_ns);
  EXPECT_EQ(windows[1].id, windows[0].id + 1);
}

TEST(AnomalyWindows, NonFiniteReadingsInARowAreAnIncident) {
  auto value = [](int, int i) { return i >= 800 && i < 830 ? std::nan("") : steady(0, i); };
  const auto windows = run(2000, 1, value);
  ASSERT_EQ(windows.size(), 1u);
  EXPECT_EQ(windows[0].start_ns, at(800));
}

}  // namespace
