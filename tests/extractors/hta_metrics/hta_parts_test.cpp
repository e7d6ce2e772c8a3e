// HTA's building blocks: interval merging and sweeps, kernel classes, microsecond rounding, describe().
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "hta_analyses.hpp"
#include "hta_time.hpp"
#include "intervals.hpp"

namespace cann_debug::plugins::hta {
namespace {

TEST(TracesHtaIntervals, MergesOverlappingAndTouchingIntervals) {
  const auto m = merge_intervals({{20, 30}, {0, 10}, {5, 15}, {15, 18}, {40, 41}});
  ASSERT_EQ(m.size(), 3u);
  EXPECT_EQ(m[0], (Interval{0, 18}));
  EXPECT_EQ(m[1], (Interval{20, 30}));
  EXPECT_EQ(m[2], (Interval{40, 41}));
  EXPECT_EQ(total_length(m), 29);
  EXPECT_TRUE(merge_intervals({}).empty());
}

TEST(TracesHtaIntervals, KeepsNegativeIntervalsAsPandasDoes) {
  // A sub-microsecond event rounded inward ends before it starts; HTA's cummax grouping keeps it.
  const auto m = merge_intervals({{0, 10}, {11, 10}, {10, 12}});
  // sorted: [0,10] [10,12] [11,10]: 10 > 10 is false, so all three form one group [0, 12].
  ASSERT_EQ(m.size(), 1u);
  EXPECT_EQ(m[0], (Interval{0, 12}));
  const auto lone = merge_intervals({{0, 10}, {12, 11}, {11, 13}});
  // [0,10] [11,13] [12,11]: 11 > 10 starts a group, 12 > 13 does not.
  ASSERT_EQ(lone.size(), 2u);
  EXPECT_EQ(lone[1], (Interval{11, 13}));
  const auto neg = merge_intervals({{0, 10}, {11, 10}});
  ASSERT_EQ(neg.size(), 2u);
  EXPECT_EQ(total_length(neg), 9);  // 10 + (-1)
}

TEST(TracesHtaIntervals, SweepsCombinationsOfSets) {
  // COMPUTATION [0,10) [25,28); COMMUNICATION [20,30); MEMORY [5,15)
  const auto t = sweep_combinations({{{0, 10}, {25, 28}}, {{20, 30}}, {{5, 15}}});
  EXPECT_EQ(t.at(1), 5);  // computation alone
  EXPECT_EQ(t.at(5), 5);  // computation + memory
  EXPECT_EQ(t.at(4), 5);  // memory alone
  EXPECT_EQ(t.at(2), 7);  // communication alone
  EXPECT_EQ(t.at(3), 3);  // computation + communication
  EXPECT_EQ(t.size(), 5u);
}

TEST(TracesHtaTime, RoundsAsHtaDoesOnDoubles) {
  // 1712195495505583.1 us is 1712195495505583.0 as a double (spacing 0.25): HTA's ceil gives ...583, not
  // ...584.
  EXPECT_EQ(hta_round(1712195495505583100, 0).ts, 1712195495505583);
  EXPECT_EQ(hta_round(1712195495505583900, 0).ts, 1712195495505584);
  EXPECT_EQ(hta_round(1712195495505583125, 0).ts, 1712195495505583);  // a tie, to even (.0)
  EXPECT_EQ(hta_round(1712195495505583375, 0).ts, 1712195495505584);  // a tie, to even (.5)
  // Small (relative) values round exactly: ceil(ts), floor(ts + dur).
  EXPECT_EQ(hta_round(4203669603771648, 6880).ts, 4203669603772);
  EXPECT_EQ(hta_round(4203669603771648, 6880).end, 4203669603778);
  EXPECT_EQ(hta_round(10600, 300).ts, 11);  // [10.6, 10.9] -> [11, 10]: negative
  EXPECT_EQ(hta_round(10600, 300).end, 10);
  EXPECT_EQ(hta_round(5000, 3000).ts, 5);  // integers stay as they are
  EXPECT_EQ(hta_round(5000, 3000).end, 8);
  EXPECT_DOUBLE_EQ(us_double(-1500), -1.5);
}

TEST(TracesHtaDescribe, MatchesPandas) {
  // pandas.Series([1, 2, 3, 4, 10]).describe(percentiles=[.5, .9, .99])
  const Describe d = describe({10, 1, 3, 2, 4});
  EXPECT_EQ(d.count, 5);
  EXPECT_DOUBLE_EQ(d.mean, 4.0);
  EXPECT_NEAR(d.std, 3.5355339059327378, 1e-12);
  EXPECT_DOUBLE_EQ(d.min, 1);
  EXPECT_DOUBLE_EQ(d.p50, 3);
  EXPECT_NEAR(d.p90, 7.6, 1e-12);
  EXPECT_NEAR(d.p99, 9.76, 1e-12);
  EXPECT_DOUBLE_EQ(d.max, 10);
  EXPECT_TRUE(std::isnan(describe({7}).std));
  EXPECT_EQ(describe({}).count, 0);
}

}  // namespace
}  // namespace cann_debug::plugins::hta
