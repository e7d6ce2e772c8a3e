// The reader on real traces from ../shared (skipped when it is absent): Ascend's trace_view.json, the legacy
// PyTorch traces of the case corpus, Kineto .json.gz.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>

#include "chrome_trace.hpp"
#include "traces_test_support.hpp"

namespace cann_debug::traces_test {
namespace {

namespace fs = std::filesystem;
using plugins::chrome_trace_factory;
using testing::Harness;

#define SHARED_OR_SKIP(var, relative)                                               \
  const fs::path var = shared_dir().empty() ? fs::path() : shared_dir() / relative; \
  if (var.empty() || !fs::exists(var)) GTEST_SKIP() << "../shared is absent: " << relative

TEST(TracesRealTraces, AscendTraceViewStringTimestampsAreExact) {
  SHARED_OR_SKIP(path, "real/ascend/mstt/trace_view.json");
  Harness h(chrome_trace_factory(), {{"path", path.string()}});
  ASSERT_EQ(run(h), "");
  const auto events = all_events(h);
  ASSERT_EQ(events.size(), 3671u);  // 3670 + trace_info
  EXPECT_EQ(events[0].args.at("format"), "ascend");
  EXPECT_EQ(events[0].args.at("clock"), "epoch");
  // {"ph": "X", "name": "aten::empty", "ts": "1704161511420306.491", "dur": 13.08, ...}: the first event.
  EXPECT_EQ(events[1].name, "aten::empty");
  EXPECT_EQ(events[1].start_ns, 1704161511420306491);
  EXPECT_EQ(events[1].duration_ns, 13080);
  std::size_t tasks = 0, strings = 0;
  for (const auto& e : events) {
    if (e.args.is_object() && e.args.contains("Stream Id")) {
      ++tasks;
      EXPECT_EQ(e.tid, e.args.at("Stream Id").get<std::int64_t>());
    }
    if (e.phase == 'X' && e.start_ns % 1000 != 0) ++strings;  // sub-us digits survived
  }
  EXPECT_EQ(tasks, 276u);
  EXPECT_GT(strings, 2000u);
}

TEST(TracesRealTraces, LegacyTrainingTracesHaveTheConfiguredProfiledSteps) {
  SHARED_OR_SKIP(training, "cases/training");
  std::size_t checked = 0;
  for (const auto& entry : fs::directory_iterator(training)) {
    const fs::path trace = entry.path() / "trace.json";
    const fs::path config = entry.path() / "config.json";
    if (!fs::exists(trace) || !fs::exists(config)) continue;
    const auto cfg = nlohmann::json::parse(read_file(config));
    std::set<std::int64_t> expected;
    for (const auto& s : cfg.at("profiler").at("profiled_steps")) expected.insert(s.get<std::int64_t>());
    Harness h(chrome_trace_factory(), {{"path", trace.string()}});
    ASSERT_EQ(run(h), "") << trace;
    const auto events = all_events(h);
    EXPECT_EQ(events[0].args.at("format"), "pytorch_legacy") << trace;
    EXPECT_EQ(events[0].args.at("clock"), "relative") << trace;
    std::set<std::int64_t> steps, step_events;
    for (const auto& e : events) {
      if (e.key.has_step()) steps.insert(e.key.step_id);
      if (e.name.rfind("ProfilerStep#", 0) == 0) {
        step_events.insert(std::stoll(e.name.substr(13)));
        EXPECT_EQ(e.key.step_id, std::stoll(e.name.substr(13))) << trace;
      }
    }
    EXPECT_EQ(steps, expected) << trace;
    EXPECT_EQ(step_events, expected) << trace;
    ++checked;
  }
  EXPECT_GT(checked, 0u);
}

TEST(TracesRealTraces, DistributedLegacyTracesTakeTheRankFromTheFileName) {
  SHARED_OR_SKIP(distributed, "cases/distributed");
  for (const auto& entry : fs::directory_iterator(distributed)) {
    for (int rank = 0; rank < 2; ++rank) {
      const fs::path trace = entry.path() / ("rank" + std::to_string(rank) + ".trace.json");
      if (!fs::exists(trace)) continue;
      Harness h(chrome_trace_factory(), {{"path", trace.string()}, {"batch_size", 100000}});
      ASSERT_EQ(run(h), "") << trace;
      const auto batches = h.outputs_of<EventBatch>(0);
      ASSERT_FALSE(batches.empty());
      EXPECT_EQ(batches[0].events[0].args.at("rank_source"), "file name");
      EXPECT_EQ(batches[0].events.back().key.rank, rank) << trace;
    }
    return;  // one case is enough
  }
}

TEST(TracesRealTraces, KinetoGzipTraceWithNanosecondTimestamps) {
  SHARED_OR_SKIP(path,
                 "real/kineto/hta_tests/v100_ns_resolution/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz");
  Harness h(chrome_trace_factory(), {{"path", path.string()}});
  ASSERT_EQ(run(h), "");
  const auto events = all_events(h);
  ASSERT_EQ(events.size(), 68693u);
  EXPECT_EQ(events[0].args.at("compressed"), true);
  EXPECT_EQ(events[0].args.at("rank_source"), "distributedInfo");
  EXPECT_EQ(events[0].args.at("clock"), "epoch");  // no baseTimeNanoseconds, but epoch microseconds
  // "ts": 1712195495519689.047, "dur": 63.813 (the first event)
  EXPECT_EQ(events[1].start_ns, 1712195495519689047);
  EXPECT_EQ(events[1].duration_ns, 63813);
  std::set<std::int64_t> steps;
  std::size_t kernels = 0;
  for (const auto& e : events) {
    if (e.key.has_step()) steps.insert(e.key.step_id);
    if (e.category == "kernel") {
      ++kernels;
      EXPECT_EQ(e.tid, 7);
      EXPECT_EQ(e.key.device, 0);
    }
  }
  EXPECT_EQ(kernels, 4350u);
  EXPECT_EQ(steps, (std::set<std::int64_t>{101, 102, 103, 104, 105}));
}

TEST(TracesRealTraces, KinetoTraceWithBaseTimeAfterTheEvents) {
  SHARED_OR_SKIP(path, "real/kineto/hta_tests/amd_mi250/mi250_minitoy_train_ROCm6_2_kineto.json.gz");
  Harness h(chrome_trace_factory(), {{"path", path.string()}});
  ASSERT_EQ(run(h), "");
  const auto events = all_events(h);
  EXPECT_EQ(events[0].args.at("base_time_ns"), 1735632360000000000);
  // "ts": 4203669604595.407 us after the base
  EXPECT_EQ(events[1].start_ns, 1735632360000000000 + 4203669604595407);
  EXPECT_EQ(events[1].key.rank, -1);  // no distributedInfo, no rank in the file name
}

}  // namespace
}  // namespace cann_debug::traces_test
