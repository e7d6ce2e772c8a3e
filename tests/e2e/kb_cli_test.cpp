// `cann-debug kb learn` and `cann-debug infer --input` through the real binary, on tiny labelled runs
// (tests/data/kb, made by make_cases.py) and, when present, on the shared case corpus.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kData = fs::path(CANN_DEBUG_TEST_DATA_DIR) / "kb";

class KbCli : public cann_debug::testing::CliTest {
 protected:
  KbCli() : CliTest("kb") {}
  int learn(const fs::path& out) {
    return run({"kb", "learn", "--cases", (kData / "cases").string(), "--graph",
                (kData / "graph.json").string(), "--pipeline", (kData / "pipeline.yaml").string(),
                "--scenario", "kbtest", "-o", out.string(), "--json"});
  }
};

TEST_F(KbCli, LearnsTablesAndScoresThemLeaveOneOut) {
  const fs::path out = scratch_ / "learnt.json";
  ASSERT_EQ(learn(out), 0) << child_->err();
  const json figures = json::parse(child_->out());
  EXPECT_EQ(figures["cases"], 6);
  EXPECT_EQ(figures["labels"]["healthy"], 3);
  EXPECT_EQ(figures["labels"]["noisy"], 3);
  EXPECT_DOUBLE_EQ(figures["leave_one_out"]["top1_accuracy"].get<double>(), 1.0);
  EXPECT_LT(figures["leave_one_out"]["mean_log_likelihood"].get<double>(), 0.0);

  std::ifstream in(out);
  const json graph = json::parse(in);
  ASSERT_TRUE(graph.contains("_learned"));
  EXPECT_EQ(graph["_learned"]["cases"], 6);
  EXPECT_NE(graph["_learned"]["note"].get<std::string>().find("kb learn"), std::string::npos);
  // The symptom's table moved from the flat prior towards what the cases show: 3 low given healthy,
  // prior strength 2 -> (1 + 3) / 5.
  const auto& spread = graph["variables"][1];
  ASSERT_EQ(spread["name"], "loss_spread");
  EXPECT_NEAR(spread["cpt"][0][0].get<double>(), 0.8, 1e-9);
  EXPECT_TRUE(spread.contains("discretization"));  // kept for the next run
}

TEST_F(KbCli, InferOnACaseFolderNamesTheCauseWithItsEvidence) {
  const fs::path learnt = scratch_ / "learnt.json";
  ASSERT_EQ(learn(learnt), 0) << child_->err();
  ASSERT_EQ(run({"infer", "--input", (kData / "cases/b2").string(), "--scenario", "training", "--pipeline",
                 (kData / "pipeline.yaml").string(), "--graph", learnt.string(), "--evidence", "--json"}),
            0)
      << child_->err();
  const json out = json::parse(child_->out());
  ASSERT_FALSE(out["root_causes"].empty());
  EXPECT_EQ(out["root_causes"][0]["id"], "noisy");
  EXPECT_GT(out["root_causes"][0]["confidence"].get<double>(), 0.5);
  EXPECT_LT(out["healthy_probability"].get<double>(), 0.5);
  ASSERT_FALSE(out["evidence"].empty());
  EXPECT_EQ(out["evidence"][0]["variable"], "loss_spread");
  EXPECT_EQ(out["evidence"][0]["state"], "high");
  EXPECT_EQ(out["evidence"][0]["feature"]["name"], "loss.std");

  // Text form, and a healthy run.
  ASSERT_EQ(run({"infer", "--input", (kData / "cases/a1").string(), "--scenario", "training", "--pipeline",
                 (kData / "pipeline.yaml").string(), "--graph", learnt.string(), "--evidence"}),
            0)
      << child_->err();
  EXPECT_NE(child_->out().find("P(healthy) = 0.8"), std::string::npos) << child_->out();
  EXPECT_NE(child_->out().find("loss.std"), std::string::npos) << child_->out();
}

// A hidden kind read off the label (from_label) that a case names in its expected.json: learning keeps the
// case's state, so the row of that kind is learnt from it; a state the graph lacks is an error naming the
// case.
TEST_F(KbCli, LearnsTheRowOfAHiddenKindACaseNames) {
  const fs::path cases = scratch_ / "cases";
  fs::copy(kData / "cases", cases, fs::copy_options::recursive);
  std::ifstream in(kData / "graph.json");
  json graph = json::parse(in);
  graph["variables"].insert(graph["variables"].begin() + 1,
                            json::parse(R"({"name": "kind", "states": ["usual", "odd"], "learn": false,
      "parents": ["root_cause"], "cpt": [[0.8, 0.2], [1, 0]],
      "from_label": {"variable": "root_cause", "states": {}, "otherwise": "usual"}})"));
  graph["variables"][2]["parents"] = {"root_cause", "kind"};
  graph["variables"][2]["cpt"] = json::parse("[[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5]]");
  const fs::path graph_path = scratch_ / "graph.json";
  std::ofstream(graph_path) << graph.dump();
  auto name_kind = [&](const std::string& state) {
    std::ofstream(cases / "a1" / "expected.json")
        << json{{"scenario", "kbtest"}, {"root_cause", "healthy"}, {"hidden", {{"kind", state}}}}.dump();
  };
  auto learn_with_kinds = [&](const fs::path& out) {
    return run({"kb", "learn", "--cases", cases.string(), "--graph", graph_path.string(), "--pipeline",
                (kData / "pipeline.yaml").string(), "--scenario", "kbtest", "-o", out.string(), "--json"});
  };

  name_kind("odd");
  const fs::path out = scratch_ / "learnt.json";
  ASSERT_EQ(learn_with_kinds(out), 0) << child_->err();
  std::ifstream learnt_in(out);
  const json learnt = json::parse(learnt_in);
  const auto& spread = learnt["variables"][2]["cpt"];
  // Rows (healthy, usual): a2 and a3, low -> (1 + 2) / 4; (healthy, odd): a1 alone, low -> (1 + 1) / 3.
  EXPECT_NEAR(spread[0][0].get<double>(), 0.75, 1e-9);
  EXPECT_NEAR(spread[1][0].get<double>(), 2.0 / 3.0, 1e-9);

  name_kind("rare");
  EXPECT_EQ(learn_with_kinds(scratch_ / "x.json"), 2);
  EXPECT_NE(child_->err().find("a1"), std::string::npos) << child_->err();
  EXPECT_NE(child_->err().find("hidden.kind: 'rare' is not a state of 'kind'"), std::string::npos)
      << child_->err();
}

TEST_F(KbCli, ErrorsNameWhatIsMissing) {
  EXPECT_EQ(run({"kb", "learn", "--cases", scratch_.string(), "--graph", (kData / "graph.json").string(),
                 "--pipeline", (kData / "pipeline.yaml").string(), "-o", (scratch_ / "x.json").string()}),
            4);
  EXPECT_NE(child_->err().find("no case folder with an expected.json"), std::string::npos) << child_->err();
  EXPECT_EQ(run({"infer", "--input", scratch_.string()}), 2);
  EXPECT_NE(child_->err().find("--scenario"), std::string::npos) << child_->err();
  EXPECT_EQ(run({"infer"}), 2);
}

}  // namespace
