// Union and overlap lengths of time intervals (the arithmetic of the step breakdown).
#include <gtest/gtest.h>

#include "intervals/interval_set.hpp"

namespace cann_debug::plugins {
namespace {

TEST(IntervalSet, UnionMergesOverlapsAndDropsEmptyIntervals) {
  EXPECT_EQ(union_length({{0, 10}, {5, 20}, {30, 40}, {7, 7}, {50, 45}}), 30);
  EXPECT_EQ(union_length({}), 0);
  EXPECT_EQ(union_length({{0, 10}, {10, 20}}), 20);  // touching intervals
}

TEST(IntervalSet, OverlapCountsEachInstantOnce) {
  // a covers [0, 20) and [30, 40); b covers [10, 35) twice over.
  EXPECT_EQ(overlap_length({{0, 20}, {30, 40}}, {{10, 35}, {12, 33}}), 15);
  EXPECT_EQ(overlap_length({{0, 5}}, {{5, 9}}), 0);
}

TEST(IntervalSet, ClipKeepsOnlyTheWindow) {
  const auto clipped = clip_intervals({{0, 10}, {15, 30}, {40, 50}}, {5, 20});
  ASSERT_EQ(clipped.size(), 2u);
  EXPECT_EQ(clipped[0].begin, 5);
  EXPECT_EQ(clipped[0].end, 10);
  EXPECT_EQ(clipped[1].begin, 15);
  EXPECT_EQ(clipped[1].end, 20);
}

}  // namespace
}  // namespace cann_debug::plugins
