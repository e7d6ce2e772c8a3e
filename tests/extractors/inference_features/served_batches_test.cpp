// Tests of the per-batch trace analysis: which slices belong to a served batch.
#include <gtest/gtest.h>

#include "served_batches.hpp"
#include "test_inputs.hpp"

namespace cann_debug::plugins::inference {
namespace {

using inference_test::slice;

std::vector<Slice> slices_of(std::vector<Event> list) {
  EventBatch batch;
  batch.events = std::move(list);
  std::vector<Slice> out;
  collect_slices(batch, out);
  return out;
}

TEST(ServedBatches, NoStepSpansNoBatches) {
  EXPECT_TRUE(served_batches(slices_of({slice("forward", 0, 100), slice("aten::mm", 10, 10)})).empty());
}

TEST(ServedBatches, StepsInIndexOrderAndOnlyTheirThread) {
  Event other_thread = slice("aten::batch_norm", 120, 10);
  other_thread.tid = 2;
  Event metadata = slice("trace_info", 0, 0);
  metadata.phase = 'M';
  const auto batches = served_batches(slices_of({
      slice("ProfilerStep#1", 1000, 500), slice("forward", 1100, 100), slice("aten::mm", 1110, 50),
      slice("ProfilerStep#0", 0, 500), slice("forward", 100, 100), other_thread, metadata,
      slice("aten::add", 300, 10),  // after forward: not a model operator
  }));
  ASSERT_EQ(batches.size(), 2u);
  EXPECT_EQ(batches[0].index, 0);
  EXPECT_EQ(batches[0].operator_count, 0);
  EXPECT_EQ(batches[0].batch_norm_count, 0);
  EXPECT_EQ(batches[0].preprocess_ns, -1);
  EXPECT_EQ(batches[1].index, 1);
  EXPECT_EQ(batches[1].operator_count, 1);
  EXPECT_EQ(batches[1].operator_self_ns.at("aten::mm"), 50'000);
  EXPECT_EQ(batches[1].operator_covered_ns, 50'000);
  // Busy: from the first slice of the step's thread to the end of its last (the forward at 100 to the add
  // ending at 310; the other thread's slice is not the call's).
  EXPECT_EQ(batches[0].busy_ns, 210'000);
  EXPECT_EQ(batches[1].busy_ns, 100'000);
}

TEST(ServedBatches, AnEmptyStepHasNoBusyTime) {
  const auto batches = served_batches(slices_of({slice("ProfilerStep#0", 0, 500)}));
  ASSERT_EQ(batches.size(), 1u);
  EXPECT_EQ(batches[0].busy_ns, -1);
}

TEST(ServedBatches, MalformedStepNamesAreNotSteps) {
  EXPECT_TRUE(served_batches(slices_of({slice("ProfilerStep#", 0, 10), slice("ProfilerStep#x1", 0, 10),
                                        slice("ProfilerStep#-3", 0, 10)}))
                  .empty());
}

}  // namespace
}  // namespace cann_debug::plugins::inference
