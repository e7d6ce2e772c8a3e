// metric.frame/1 on a link whose input accepts only metric.batch/1: the planner allows it and marks it,
// and the runner delivers each frame as the batch of its points (absent values left out).
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

constexpr const char* kFramesPipeline = R"(version: 1
components:
  counter_source/src: { count: 4, format: frame }
  collect_sink/out: { path: "${tmp}/out.jsonl" }
links:
  - counter_source/src.out -> collect_sink/out.in
  - counter_source/src.frames -> collect_sink/out.extra
)";

TEST(RunnerFrames, AFrameReachesABatchOnlyInputAsTheBatchOfItsPoints) {
  TempDir dir;
  auto registry = good_registry();
  host::Diagnostics diags;
  host::PipelineInputs inputs;
  inputs.variables["tmp"] = dir.path().string();
  auto plan = plan_text(kFramesPipeline, *registry, diags, inputs);
  ASSERT_TRUE(plan) << diags.to_string();
  ASSERT_EQ(plan->links.size(), 2u);
  EXPECT_FALSE(plan->links[0].expand_frames);
  EXPECT_TRUE(plan->links[1].expand_frames);
  EXPECT_EQ(plan->links[1].message_type, "metric.frame/1");

  const auto report = run_with_deadline(*plan, {});
  EXPECT_TRUE(report.errors.empty());
  std::vector<nlohmann::json> batches;
  for (const auto& line : read_lines(dir.file("out.jsonl")))
    if (!line.empty() && line[0] == '{') batches.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(batches.size(), 4u);
  // Message 1: the second series is absent (NaN), so one point; message 2: both.
  ASSERT_EQ(batches[0].at("points").size(), 1u);
  ASSERT_EQ(batches[1].at("points").size(), 2u);
  const auto& even = batches[1]["points"][1];
  EXPECT_EQ(even.at("name"), "fixture.even");
  EXPECT_EQ(even.at("labels").at("kind"), "even");
  EXPECT_EQ(even.at("key").at("device"), 1);
  EXPECT_EQ(even.at("key").at("timestamp_ns"), 2'000'000'000);
  EXPECT_EQ(batches[3]["points"][0].at("value"), 4.0);
}

TEST(RunnerFrames, AFrameCannotGoWhereNeitherFramesNorBatchesAreAccepted) {
  auto registry = good_registry();
  host::Diagnostics diags;
  auto plan = plan_text(R"(version: 1
components:
  counter_source/src: { format: frame }
  collect_sink/out: { path: /tmp/never.jsonl }
links:
  - counter_source/src.frames -> collect_sink/out.in
)",
                        *registry, diags, {});
  EXPECT_FALSE(plan);
  EXPECT_NE(diags.to_string().find("produces metric.frame/1"), std::string::npos) << diags.to_string();
}

}  // namespace
}  // namespace cann_debug::itest
