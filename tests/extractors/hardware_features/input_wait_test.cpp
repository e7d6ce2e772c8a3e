// Tests of hardware_features' DataLoader stalls: profiler traces built by hand (Kineto's current and first
// categories), the exposed share against device rows, the steps cited, the worst rank of several, and the
// flag that says the host's feeding was measured at all.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "hardware_features.hpp"

namespace cann_debug::plugins {
namespace {

using testing::Harness;

constexpr std::size_t kEvents = 2;
constexpr TimestampNs kStart = 1'700'000'000'000'000'000;
constexpr std::int64_t kMs = 1'000'000;

struct Categories {
  const char* step = "user_annotation";
  const char* loader = "user_annotation";
  const char* kernel = "kernel";
  const char* memcpy = "gpu_memcpy";
};
constexpr Categories kCurrent{};
constexpr Categories kFirstKineto{"Operator", "Operator", "Kernel", "Memcpy"};  // PyTorch 1.8 / 1.9

Event slice(std::string name, const char* category, std::int64_t start_ms, std::int64_t duration_ms,
            std::int32_t rank = 0) {
  Event e;
  e.name = std::move(name);
  e.category = category;
  e.start_ns = kStart + start_ms * kMs;
  e.duration_ns = duration_ms * kMs;
  e.key.rank = rank;
  return e;
}

// `steps` steps of 100 ms from step number 5 on; each begins with a DataLoader call of `loader_ms`, and
// device work covers [kernels_from_ms, 100) of the step (a memcpy first, then a kernel).
EventBatch training_trace(int steps, std::int64_t loader_ms, std::int64_t kernels_from_ms,
                          const Categories& c = kCurrent, std::int32_t rank = 0, bool device = true) {
  EventBatch b;
  b.source_path = "/runs/r/rank" + std::to_string(rank) + ".pt.trace.json";
  for (int i = 0; i < steps; ++i) {
    const std::int64_t t = i * 100;
    b.events.push_back(slice("ProfilerStep#" + std::to_string(5 + i), c.step, t, 100, rank));
    b.events.push_back(
        slice("ProfilerStep#" + std::to_string(5 + i), "gpu_user_annotation", t + 1, 99, rank));
    b.events.push_back(
        slice("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__", c.loader, t, loader_ms, rank));
    b.events.push_back(slice("aten::conv2d", "cpu_op", t + loader_ms, 100 - loader_ms, rank));
    if (device) {
      b.events.push_back(slice("Memcpy HtoD (Pageable -> Device)", c.memcpy, t + kernels_from_ms, 2, rank));
      b.events.push_back(
          slice("volta_sgemm_128x64_nn", c.kernel, t + kernels_from_ms + 2, 98 - kernels_from_ms, rank));
    }
  }
  return b;
}

std::optional<FeatureSet> run(std::vector<EventBatch> traces) {
  Harness h(hardware_features_factory(), nlohmann::json::object());
  std::vector<std::pair<std::size_t, Envelope>> inputs;
  for (auto& t : traces) inputs.emplace_back(kEvents, Envelope::make(CorrelationKey{}, std::move(t)));
  h.run_processor(inputs);
  auto sets = h.outputs_of<FeatureSet>(0);
  if (sets.empty()) return std::nullopt;
  EXPECT_EQ(sets.size(), 1u);
  return sets.back();
}

const Feature* find(const FeatureSet& set, const std::string& name) {
  for (const auto& f : set.features)
    if (f.name == name) return &f;
  return nullptr;
}

TEST(InputWait, ALoaderThatLeavesTheDeviceIdleIsExposedWithItsSteps) {
  // 40 ms of each 100 ms step in the loader, the device busy only after it: 40% exposed.
  auto set = run({training_trace(4, 40, 40)});
  ASSERT_TRUE(set);
  const Feature* exposed = find(*set, "hw.input.data_loader_exposed_share");
  ASSERT_NE(exposed, nullptr);
  EXPECT_NEAR(exposed->value, 0.4, 1e-9);
  EXPECT_NEAR(find(*set, "hw.input.data_loader_share")->value, 0.4, 1e-9);
  EXPECT_DOUBLE_EQ(find(*set, "hw.input.data_loader_longest_ms")->value, 40.0);
  ASSERT_GE(exposed->evidence.size(), 2u);
  const EvidenceRef& all = exposed->evidence.front();
  EXPECT_EQ(all.kind, "steps");
  EXPECT_EQ(all.first_step, 5);
  EXPECT_EQ(all.last_step, 8);
  EXPECT_EQ(all.start_ns, kStart);
  EXPECT_EQ(all.end_ns, kStart + 400 * kMs);
  EXPECT_NE(
      all.id.find("ProfilerStep#5..ProfilerStep#8 (4 steps) of rank0.pt.trace.json: the device idle 160 ms "
                  "of 400 ms (40%)"),
      std::string::npos)
      << all.id;
  EXPECT_EQ(exposed->evidence[1].kind, "step");
  EXPECT_NE(exposed->evidence[1].id.find("40 ms of 100 ms waiting for the DataLoader"), std::string::npos);
  const Feature* measured = find(*set, "hw.host.input_measured");
  ASSERT_NE(measured, nullptr);
  EXPECT_DOUBLE_EQ(measured->value, 1.0);
}

TEST(InputWait, ALoaderTheDeviceWorksThroughIsNotExposed) {
  // The same 40 ms loader calls, but the device runs the previous batch all through them (kernels from 0).
  auto set = run({training_trace(4, 40, 0)});
  ASSERT_TRUE(set);
  EXPECT_NEAR(find(*set, "hw.input.data_loader_exposed_share")->value, 0.0, 1e-9);
  EXPECT_NEAR(find(*set, "hw.input.data_loader_share")->value, 0.4, 1e-9);
  // A partial overlap counts only the idle part: kernels from 30 ms leave 30 of the 40 ms exposed.
  EXPECT_NEAR(find(*run({training_trace(4, 40, 30)}), "hw.input.data_loader_exposed_share")->value, 0.3,
              1e-9);
}

TEST(InputWait, KinetosFirstCategoriesReadTheSame) {
  auto set = run({training_trace(3, 25, 25, kFirstKineto)});
  ASSERT_TRUE(set);
  EXPECT_NEAR(find(*set, "hw.input.data_loader_exposed_share")->value, 0.25, 1e-9);
}

TEST(InputWait, ACpuOnlyTraceGivesTheLoaderShareButNoExposedShare) {
  auto set = run({training_trace(4, 40, 40, kCurrent, 0, /*device=*/false)});
  ASSERT_TRUE(set);
  EXPECT_NEAR(find(*set, "hw.input.data_loader_share")->value, 0.4, 1e-9);
  EXPECT_EQ(find(*set, "hw.input.data_loader_exposed_share"), nullptr);
  EXPECT_EQ(find(*set, "hw.host.input_measured"), nullptr);  // nothing measured a starved device
  EXPECT_NE(find(*set, "hw.input.data_loader_share")->evidence.front().id.find("(no device rows)"),
            std::string::npos);
}

TEST(InputWait, TheRankThatWaitedLongestIsReported) {
  auto set = run({training_trace(4, 10, 10, kCurrent, 0), training_trace(4, 50, 50, kCurrent, 1),
                  training_trace(4, 20, 20, kCurrent, 2)});
  ASSERT_TRUE(set);
  const Feature* exposed = find(*set, "hw.input.data_loader_exposed_share");
  ASSERT_NE(exposed, nullptr);
  EXPECT_NEAR(exposed->value, 0.5, 1e-9);
  EXPECT_EQ(exposed->labels.at("rank"), "1");
}

TEST(InputWait, ATraceWithoutLoaderCallsOrStepsSaysWhatItCan) {
  // No DataLoader span: nothing to say of the loader, so no feature set at all.
  EventBatch none;
  none.source_path = "t.json";
  none.events.push_back(slice("ProfilerStep#1", "user_annotation", 0, 100));
  none.events.push_back(slice("volta_sgemm_128x64_nn", "kernel", 10, 80));
  EXPECT_FALSE(run({none}));
  // No ProfilerStep: the whole trace is one span.
  EventBatch stepless;
  stepless.source_path = "t.json";
  stepless.events.push_back(
      slice("enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", "cpu_op", 0, 30));
  stepless.events.push_back(slice("volta_sgemm_128x64_nn", "kernel", 30, 70));
  auto set = run({stepless});
  ASSERT_TRUE(set);
  EXPECT_NEAR(find(*set, "hw.input.data_loader_exposed_share")->value, 0.3, 1e-9);
  EXPECT_NE(find(*set, "hw.input.data_loader_share")->evidence.front().id.find("the profiled span"),
            std::string::npos);
}

}  // namespace
}  // namespace cann_debug::plugins
