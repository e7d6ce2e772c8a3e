// `cann-debug infer` through the real binary: posteriors of reference queries, ranked causes, bad input.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const fs::path kShared = CANN_DEBUG_SHARED_DIR;

class InferCli : public cann_debug::testing::CliTest {
 protected:
  InferCli() : CliTest("infer") {}
};

TEST_F(InferCli, MatchesReferencePosteriorsOfTheSharedCorpus) {
  const fs::path queries = kShared / "bn/queries/alarm.json";
  if (!fs::exists(queries)) GTEST_SKIP() << queries << " is absent";
  std::ifstream in(queries);
  json all = json::parse(in);
  ASSERT_FALSE(all.empty());
  int checked = 0;
  for (const auto& q : all) {
    if (checked == 3) break;  // the engine's own tests cover every query; this proves the CLI path
    ASSERT_EQ(run({"infer", "--graph", (kShared / "bn/alarm.bif").string(), "--evidence",
                   q["evidence"].dump(), "--json"}),
              0)
        << child_->err();
    json out = json::parse(child_->out());
    for (const auto& [var, states] : q["posteriors"].items()) {
      if (q["evidence"].contains(var)) {
        EXPECT_FALSE(out["posteriors"].contains(var)) << "evidence variable " << var << " listed";
        continue;
      }
      for (const auto& [state, p] : states.items())
        EXPECT_NEAR(out["posteriors"][var][state].get<double>(), p.get<double>(), 1e-9)
            << q["id"] << " " << var;
    }
    ++checked;
  }
}

TEST_F(InferCli, RanksRootCausesOfABundledGraph) {
  const fs::path graph = fs::path(CANN_DEBUG_TEST_DATA_DIR) / "bayes/paths.json";
  ASSERT_TRUE(fs::exists(graph));
  ASSERT_EQ(run({"infer", "--graph", graph.string(), "--json", "--top-k", "2"}), 0) << child_->err();
  json out = json::parse(child_->out());
  ASSERT_TRUE(out["top_causes"].is_array());
  ASSERT_FALSE(out["top_causes"].empty());
  double previous = 1.0;
  for (const auto& c : out["top_causes"]) {
    EXPECT_LE(c["probability"].get<double>(), previous);
    previous = c["probability"].get<double>();
  }
  for (const auto& [var, states] : out["posteriors"].items()) {
    double sum = 0;
    for (const auto& [s, p] : states.items()) sum += p.get<double>();
    EXPECT_NEAR(sum, 1.0, 1e-12) << var;
  }
}

TEST_F(InferCli, BadEvidenceIsAUsageError) {
  const fs::path graph = fs::path(CANN_DEBUG_TEST_DATA_DIR) / "bayes/paths.json";
  EXPECT_EQ(run({"infer", "--graph", graph.string(), "--evidence", "{\"a\": "}), 2);
  EXPECT_NE(child_->err().find("--evidence: not JSON"), std::string::npos) << child_->err();
  EXPECT_EQ(run({"infer", "--graph", graph.string(), "--evidence", "[1,2]"}), 2);
  EXPECT_NE(child_->err().find("expected a JSON object"), std::string::npos) << child_->err();
}

TEST_F(InferCli, UnknownStateIsReportedByTheEngine) {
  const fs::path graph = fs::path(CANN_DEBUG_TEST_DATA_DIR) / "bayes/paths.json";
  std::ifstream in(graph);
  json g = json::parse(in);
  const std::string var = g["variables"][0]["name"].get<std::string>();
  const int rc = run({"infer", "--graph", graph.string(), "--evidence", json{{var, "no_such_state"}}.dump()});
  EXPECT_NE(rc, 0);
  EXPECT_NE(child_->err().find("no_such_state"), std::string::npos) << child_->err();
}

}  // namespace
