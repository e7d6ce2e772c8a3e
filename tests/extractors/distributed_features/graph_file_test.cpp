// pipelines/graphs/distributed.json against the features: every observed variable reads a feature the
// extractor produces, and the values of a plainly healthy run land in states the healthy row expects (so a
// bin-to-state mapping pointing the wrong way fails here).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include <nlohmann/json.hpp>

namespace {

using nlohmann::json;

// Feature values of a healthy DDP run: overlapped, bucketed communication, equal ranks, full-speed links
// and large packets, collectives launched during backward, a filled pipeline (8 micro-batches over 2 stages)
// and ranks of a stage within a few % of a step in the profiler's step split.
const std::map<std::string, double> kHealthyRun = {
    {"comm.exposed_ratio", 0.02},
    {"comm.collectives_per_step", 1},
    {"rank.outside_model_skew", 0.01},
    {"rank.forward_imbalance", 1.1},
    {"rank.batch_size_imbalance", 1.0},
    {"rank.collective_wait_skew", 0.05},
    {"comm.link_bandwidth_ratio", 1.0},
    {"comm.large_packet_ratio", 0.9},
    {"comm.backward_overlap_share", 0.99},
    {"pipeline.bubble_share", 1.0 / 9.0},
    {"rank.step_split_gap", 0.03},
    {"rank.expert_load_skew", 1.05},
    {"moe.expert_token_max_over_mean", 1.1},
    // hardware_features of a recording whose hardware was fine
    {"hw.device.clock_drop", 0.0},
    {"hw.memory.peak_utilization", 0.6},
    {"hw.host.cpu_starved_share", 0.0},
    {"hw.input.data_loader_exposed_share", 0.01},
    {"hw.host.input_measured", 1.0},
    {"hw.network.congestion_ratio", 1e-4},
};

// The healthy row of a table with root_cause as its only parent: keyed ({"given", "p"}) as written by
// hand, or positional (one row per root_cause state) as `kb learn` writes it.
const json* healthy_row(const json& graph, const json& v) {
  for (const json& row : v.at("cpt"))
    if (row.is_object() && row.at("given").at("root_cause") == "healthy") return &row.at("p");
  std::size_t healthy = 0;
  for (const json& r : graph.at("variables"))
    if (r.at("name") == "root_cause")
      while (r.at("states").at(healthy) != "healthy") ++healthy;
  if (!v.at("cpt").at(healthy).is_array()) return nullptr;
  return &v.at("cpt").at(healthy);
}

class DistributedGraphFile : public ::testing::TestWithParam<const char*> {};

INSTANTIATE_TEST_SUITE_P(PriorAndLearnt, DistributedGraphFile,
                         ::testing::Values("pipelines/graphs/priors/distributed.json",
                                           "pipelines/graphs/distributed.json"));

TEST_P(DistributedGraphFile, HealthyValuesLandInTheStatesTheHealthyRowExpects) {
  std::ifstream in(std::filesystem::path(CANN_DEBUG_SOURCE_DIR) / GetParam());
  ASSERT_TRUE(in.good());
  const json graph = json::parse(in);
  int observed = 0;
  for (const json& v : graph.at("variables")) {
    if (!v.contains("discretization")) continue;
    ++observed;
    const std::string name = v.at("name");
    const json& d = v.at("discretization");
    const std::string feature = d.at("feature");
    ASSERT_TRUE(kHealthyRun.count(feature)) << name << " reads an unknown feature " << feature;
    const double x = kHealthyRun.at(feature);
    std::size_t bin = 0;
    for (const json& t : d.at("thresholds"))
      if (x >= t.get<double>()) ++bin;
    const json& states = d.contains("states") ? d.at("states") : v.at("states");
    const std::string state = states.at(bin);
    std::size_t index = 0;
    while (v.at("states").at(index) != state) ++index;
    const json* row = healthy_row(graph, v);
    ASSERT_NE(row, nullptr) << name;
    EXPECT_GE(row->at(index).get<double>(), 0.5)
        << name << " = " << state << " for " << feature << " = " << x;
  }
  EXPECT_EQ(observed, static_cast<int>(kHealthyRun.size()));
}

}  // namespace
