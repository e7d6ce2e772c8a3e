// Ascend per-rank step split (ascend_step_trace records) -> who was idle, whose compute was heavier, whom the
// others waited for.
#include <gtest/gtest.h>

#include <map>

#include "ascend_step_trace.hpp"

namespace cann_debug::plugins::distributed {
namespace {

Record row(std::int64_t rank, double computing, double comm, double free, const char* type = "rank") {
  Record r;
  r.fields = {{"type", type},           {"index", rank},
              {"computing", computing}, {"communication_not_overlapped", comm},
              {"free", free},           {"step", nullptr}};
  return r;
}

std::map<std::string, double> run_features(const AscendStepTrace& t,
                                           std::vector<FeatureSet>* sets = nullptr) {
  std::vector<FeatureSet> local;
  std::vector<Feature> run;
  t.features(sets ? *sets : local, run, true);
  std::map<std::string, double> out;
  for (const auto& f : run) out[f.name] = f.value;
  return out;
}

TEST(AscendStepTrace, TheIdleRankIsTheOneTheOthersWaitFor) {
  AscendStepTrace t;
  // µs per step: rank 1 idles 600 ms more than the others and communicates least (it arrives last).
  t.add(row(0, 80'000, 700'000, 1'000'000), "c.csv");
  t.add(row(1, 80'000, 100'000, 1'600'000), "c.csv");
  t.add(row(2, 80'000, 650'000, 1'050'000), "c.csv");
  t.add(row(-1, 90'000, 700'000, 1'600'000, "stage"), "c.csv");  // a stage row is not a rank
  std::vector<FeatureSet> sets;
  auto f = run_features(t, &sets);
  EXPECT_EQ(sets.size(), 3u);
  EXPECT_DOUBLE_EQ(f["rank.late_rank"], 1.0);
  EXPECT_DOUBLE_EQ(f["step.time"], 1780.0);  // ms, median of 1780, 1780, 1780
  EXPECT_NEAR(f["rank.outside_model_skew"], (1600.0 - 1025.0) / 1780.0, 1e-12);  // vs the others' median
  EXPECT_NEAR(f["rank.collective_wait_skew"], (700.0 - 100.0) / 1780.0, 1e-12);
  EXPECT_NEAR(f["rank.late_rank_collective_share"], 100.0 / 700.0, 1e-12);
  EXPECT_DOUBLE_EQ(f["rank.compute_imbalance"], 1.0);
}

TEST(AscendStepTrace, OneRankSaysNothingAcrossRanks) {
  AscendStepTrace t;
  t.add(row(0, 1, 2, 3), "c.csv");
  EXPECT_TRUE(run_features(t).empty());
}

}  // namespace
}  // namespace cann_debug::plugins::distributed
