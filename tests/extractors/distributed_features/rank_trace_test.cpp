// The per-step breakdown of one rank's trace.
#include <gtest/gtest.h>

#include "rank_trace.hpp"
#include "test_events.hpp"

namespace cann_debug::plugins::distributed {
namespace {

using test::span;

constexpr std::int64_t kMs = 1000000;

TEST(RankTrace, SplitsAStepIntoLoadingModelCollectivesAndOutside) {
  RankTrace trace;
  // Step 3, 0..50 ms: loading 2 ms, forward 5, backward 30 (autograd 10 with a 1 ms collective call inside),
  // collective work 20 ms of which 18 inside backward and 2 after it, optimizer 1 ms.
  for (const Event& e :
       {span("ProfilerStep#3", 0, 50000), span("data_loading", 0, 2000), span("forward", 2000, 5000),
        span("backward", 7000, 30000), span("autograd::engine::evaluate_function: MmBackward0", 7000, 10000),
        span("c10d::allreduce_", 9000, 1000), span("gloo:all_reduce", 19000, 20000, 2),
        span("optimizer_step", 40000, 1000), span("aten::mm", 7100, 500)})
    trace.add(e);
  const auto steps = trace.steps();
  ASSERT_EQ(steps.size(), 1u);
  const StepBreakdown& s = steps[0];
  EXPECT_EQ(s.step, 3);
  EXPECT_EQ(s.step_ns, 50 * kMs);
  EXPECT_EQ(s.data_loading_ns, 2 * kMs);
  EXPECT_EQ(s.forward_ns, 5 * kMs);
  EXPECT_EQ(s.backward_ns, 30 * kMs);
  EXPECT_EQ(s.backward_compute_ns, 9 * kMs);  // autograd 10 minus the collective call in it
  EXPECT_EQ(s.optimizer_ns, 1 * kMs);
  EXPECT_EQ(s.collective_ns, 20 * kMs);
  EXPECT_EQ(s.exposed_collective_ns, 2 * kMs);  // 37..39 ms: after backward, before optimizer
  EXPECT_EQ(s.collective_calls, 1);
  EXPECT_EQ(s.outside_model_ns, (50 - 36 - 2) * kMs);  // model 2..37 and 40..41
}

TEST(RankTrace, AnMoEsAllToAllIsTokenDispatchNotGradientSync) {
  RankTrace trace;
  // Step 0, 0..40 ms: forward 10 ms holding a 3 ms all_to_all (call and work), backward 20 ms holding
  // another, then the gradients' all_reduce 5 ms after backward.
  for (const Event& e :
       {span("ProfilerStep#0", 0, 40000), span("forward", 0, 10000), span("c10d::alltoall_base_", 4000, 3000),
        span("gloo:all_to_all", 4000, 3000, 2), span("backward", 10000, 20000),
        span("c10d::alltoall_base_", 15000, 3000), span("gloo:all_to_all", 15000, 3000, 2),
        span("c10d::allreduce_", 30000, 5000), span("gloo:all_reduce", 30000, 5000, 2)})
    trace.add(e);
  const auto steps = trace.steps();
  ASSERT_EQ(steps.size(), 1u);
  const StepBreakdown& s = steps[0];
  // Only the all_reduce synchronises gradients: it is all exposed and none of it runs in backward.
  EXPECT_EQ(s.collective_ns, 5 * kMs);
  EXPECT_EQ(s.exposed_collective_ns, 5 * kMs);
  EXPECT_EQ(s.collective_in_backward_ns, 0);
  EXPECT_EQ(s.collective_calls, 1);
  EXPECT_EQ(s.dispatch_ns, 6 * kMs);
  EXPECT_EQ(s.forward_compute_ns, 7 * kMs);  // the forward's dispatch is no compute either
  EXPECT_TRUE(is_all_to_all("nccl:all_to_all"));
  EXPECT_TRUE(is_all_to_all("c10d::alltoall_"));
  EXPECT_FALSE(is_all_to_all("gloo:all_reduce"));
}

TEST(RankTrace, EventsOfOtherThreadsAndNonCompleteEventsDoNotCount) {
  RankTrace trace;
  trace.add(span("ProfilerStep#0", 0, 10000));
  trace.add(span("forward", 1000, 5000, 7));  // another thread's range is not this step's forward
  Event instant = span("c10d::allreduce_", 2000, 0);
  instant.phase = 'i';
  trace.add(instant);
  const auto steps = trace.steps();
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].forward_ns, 0);
  EXPECT_EQ(steps[0].collective_calls, 0);
  EXPECT_EQ(steps[0].outside_model_ns, 10 * kMs);
}

TEST(RankTrace, StepsComeInStepOrderAndMalformedStepNamesAreIgnored) {
  RankTrace trace;
  trace.add(span("ProfilerStep#12", 50000, 1000));
  trace.add(span("ProfilerStep#2", 0, 1000));
  trace.add(span("ProfilerStep#x", 2000, 1000));
  const auto steps = trace.steps();
  ASSERT_EQ(steps.size(), 2u);
  EXPECT_EQ(steps[0].step, 2);
  EXPECT_EQ(steps[1].step, 12);
}

TEST(RankTrace, CollectiveNamesOfGlooNcclAndHccl) {
  EXPECT_TRUE(is_collective_work("gloo:all_reduce"));
  EXPECT_TRUE(is_collective_work("nccl:all_reduce"));
  EXPECT_TRUE(is_collective_work("hccl:broadcast"));
  EXPECT_FALSE(is_collective_work("aten::add_"));
  EXPECT_TRUE(is_collective_call("c10d::allreduce_"));
  EXPECT_FALSE(is_collective_call("torch.distributed.ddp.reducer::copy_bucket_to_grad"));
}

}  // namespace
}  // namespace cann_debug::plugins::distributed
