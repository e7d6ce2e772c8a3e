// Ascend per-rank step split (ascend_step_trace records) -> who was idle, whose compute was heavier, whom the
// others waited for, within each pipeline stage, and how much of a step each stage waits in receives.
#include <gtest/gtest.h>

#include <map>

#include "ascend_step_trace.hpp"

namespace cann_debug::plugins::distributed {
namespace {

Record row(std::int64_t rank, double computing, double comm, double free, double bubble = -1) {
  Record r;
  r.fields = {{"type", "rank"},         {"index", rank},
              {"computing", computing}, {"communication_not_overlapped", comm},
              {"free", free},           {"step", nullptr}};
  if (bubble >= 0) r.fields["bubble"] = bubble;
  return r;
}

Record stage_row(const char* ranks) {
  Record r;
  r.fields = {{"type", "stage"}, {"index", ranks}, {"computing", 1e9}, {"communication_not_overlapped", 1e9},
              {"free", 1e9},     {"step", nullptr}};
  return r;
}

struct Out {
  std::map<std::string, Feature> run;
  std::vector<FeatureSet> sets;
  double value(const std::string& name) const { return run.at(name).value; }
};

Out features_of(const AscendStepTrace& t) {
  Out out;
  std::vector<Feature> run;
  t.features(out.sets, run, true);
  for (const auto& f : run) out.run.emplace(f.name, f);
  return out;
}

TEST(AscendStepTrace, TheIdleRankIsTheOneTheOthersWaitFor) {
  AscendStepTrace t;
  // µs per step: rank 1 idles 600 ms more than the others and communicates least (it arrives last).
  t.add(row(0, 80'000, 700'000, 1'000'000), "c.csv");
  t.add(row(1, 80'000, 100'000, 1'600'000), "c.csv");
  t.add(row(2, 80'000, 650'000, 1'050'000), "c.csv");
  t.add(stage_row("(0, 1, 2)"), "c.csv");  // a stage row is not a rank
  const Out f = features_of(t);
  EXPECT_EQ(f.sets.size(), 3u);
  EXPECT_DOUBLE_EQ(f.value("step.time"), 1780.0);  // ms, median of 1780, 1780, 1780
  EXPECT_NEAR(f.value("rank.idle_skew"), (1600.0 - 1025.0) / 1780.0, 1e-12);  // vs the others' median
  // The gap: communication 700 - 100 ms (600) against free 1600 - 1000 ms (600): equal, the first
  // dimension with the largest gap wins and points at the rank that waited least.
  EXPECT_NEAR(f.value("rank.step_split_gap"), 600.0 / 1780.0, 1e-12);
  EXPECT_DOUBLE_EQ(f.value("rank.late_rank"), 1.0);
  EXPECT_EQ(f.run.at("rank.step_split_gap").evidence.front().id, "rank1");
  EXPECT_DOUBLE_EQ(f.value("rank.compute_imbalance"), 1.0);
  // Free already enters the gap: the graph's outside-model skew is not emitted a second time.
  EXPECT_FALSE(f.run.contains("rank.outside_model_skew"));
  EXPECT_FALSE(f.run.contains("rank.collective_wait_skew"));
}

TEST(AscendStepTrace, RanksAreComparedWithinTheirPipelineStage) {
  AscendStepTrace t;
  // Stage 0 (ranks 0, 1) sends; stage 1 (ranks 2, 3) waits 180 ms per step in receives (its Bubble), so
  // its non-overlapped communication is far above stage 0's without any rank being late.
  t.add(stage_row("(0, 1)"), "c.csv");
  t.add(stage_row("(2, 3)"), "c.csv");
  t.add(row(0, 75'000, 150'000, 70'000, 0), "c.csv");
  t.add(row(1, 75'000, 146'000, 74'000, 0), "c.csv");
  t.add(row(2, 80'000, 216'000, 85'000, 180'000), "c.csv");
  t.add(row(3, 80'000, 218'000, 83'000, 180'000), "c.csv");
  const Out f = features_of(t);
  EXPECT_DOUBLE_EQ(f.value("pipeline.stages"), 2.0);
  // Within stage 0: communication 150 - 146 = 4 ms and free 74 - 70 = 4 ms over a 295 ms step; stage 1:
  // receives excluded, 38 - 36 = 2 ms and free 2 ms over 381 ms. Across all ranks it would be 72 ms.
  EXPECT_NEAR(f.value("rank.step_split_gap"), 4.0 / 295.0, 1e-9);
  EXPECT_EQ(f.run.at("rank.step_split_gap").labels.at("stage"), "0 (ranks 0,1)");
  // Bubble: stage 1's median receive time over its median step.
  EXPECT_NEAR(f.value("pipeline.bubble_share"), 180.0 / 381.0, 1e-9);
  EXPECT_NEAR(f.value("pipeline.bubble_time"), 180.0, 1e-9);
  EXPECT_EQ(f.run.at("pipeline.bubble_share").evidence.front().kind, "stage");
  EXPECT_EQ(f.run.at("pipeline.bubble_share").evidence.front().id, "1 (ranks 2,3)");
}

TEST(AscendStepTrace, AHeavierRankInAStageIsNamedByItsComputeGap) {
  AscendStepTrace t;
  t.add(stage_row("(0, 1, 2, 3)"), "c.csv");
  // Rank 2 computes 35 ms longer; the others wait for it, each about 35 ms more in the collectives.
  t.add(row(0, 75'000, 180'000, 70'000, 0), "c.csv");
  t.add(row(1, 75'000, 181'000, 70'000, 0), "c.csv");
  t.add(row(2, 110'000, 145'000, 70'000, 0), "c.csv");
  t.add(row(3, 75'000, 179'000, 71'000, 0), "c.csv");
  const Out f = features_of(t);
  EXPECT_DOUBLE_EQ(f.value("rank.late_rank"), 2.0);
  EXPECT_NEAR(f.value("rank.compute_imbalance"), 110.0 / 75.0, 1e-9);
  EXPECT_GT(f.value("rank.step_split_gap"), 0.1);
  EXPECT_DOUBLE_EQ(f.value("pipeline.bubble_share"), 0.0);  // a Bubble column of zeros: a filled pipeline
}

TEST(AscendStepTrace, WithoutTheExcludeReceiveColumnReceivesAreTakenOutByHand) {
  AscendStepTrace t;
  // Per-rank step_trace_time.csv files of two ranks of one stage, no stage rows: one group. Rank 1's
  // larger communication is all receive (bubble), so the collectives are level.
  t.add(row(0, 80'000, 100'000, 20'000, 0), "a.csv");
  t.add(row(1, 80'000, 160'000, 20'000, 60'000), "b.csv");
  const Out f = features_of(t);
  EXPECT_NEAR(f.value("rank.step_split_gap"), 0.0, 1e-12);
  EXPECT_DOUBLE_EQ(f.value("pipeline.stages"), 1.0);
}

TEST(AscendStepTrace, OneRankSaysNothingAcrossRanks) {
  AscendStepTrace t;
  t.add(row(0, 1, 2, 3), "c.csv");
  std::vector<FeatureSet> sets;
  std::vector<Feature> run;
  t.features(sets, run, true);
  EXPECT_TRUE(run.empty());
  EXPECT_TRUE(sets.empty());
}

}  // namespace
}  // namespace cann_debug::plugins::distributed

namespace cann_debug::plugins::distributed {
namespace {

Record own_file_row(std::int64_t rank, double computing, double comm, double free) {
  Record r;
  r.key.rank = rank;  // the ranks' own step_trace_time.csv: the rank comes from the folder
  r.fields = {{"computing", computing}, {"communication_not_overlapped", comm}, {"free", free}, {"step", 2}};
  return r;
}

// A run folder with msprof-analyze's cluster file and the ranks' own files beside it: the cluster file's rows
// are the ones read, whichever arrives first; without a cluster file the ranks' own files are the input.
TEST(AscendStepTrace, TheClusterFileWinsOverTheRanksOwnFiles) {
  for (const bool cluster_first : {true, false}) {
    AscendStepTrace t;
    const auto own = [&] {
      t.add(own_file_row(0, 80'000, 100'000, 1'000'000),
            "run/rank_0/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
      t.add(own_file_row(1, 80'000, 100'000, 3'000'000),
            "run/rank_1/ASCEND_PROFILER_OUTPUT/step_trace_time.csv");
    };
    const auto cluster = [&] {
      t.add(row(0, 80'000, 100'000, 1'000'000), "run/cluster_analysis_output/cluster_step_trace_time.csv");
      t.add(row(1, 80'000, 100'000, 1'000'000), "run/cluster_analysis_output/cluster_step_trace_time.csv");
    };
    if (cluster_first) {
      cluster();
      own();
    } else {
      own();
      cluster();
    }
    const Out f = features_of(t);
    EXPECT_EQ(f.sets.size(), 2u) << cluster_first;
    EXPECT_DOUBLE_EQ(f.value("step.time"), 1180.0) << cluster_first;  // not the own files' 3180 ms rank
  }
  AscendStepTrace own_only;
  own_only.add(own_file_row(0, 80'000, 100'000, 1'000'000), "r0/step_trace_time.csv");
  own_only.add(own_file_row(1, 80'000, 100'000, 3'000'000), "r1/step_trace_time.csv");
  const Out f = features_of(own_only);
  EXPECT_EQ(f.sets.size(), 2u);
  EXPECT_NEAR(f.value("rank.idle_skew"), 2000.0 / 2180.0, 1e-9);  // rank 1 idles 2 s more
}

}  // namespace
}  // namespace cann_debug::plugins::distributed
