// `cann-debug optimize` end to end through the real binary, on a diagnosis of the bundled lr-too-high run and
// a stand-in workload (tests/data/optimize/workload.sh) whose behaviour a suggestion's patch picks: a fix
// that is validated, applied and rolled back; misbehaving workloads (hang, crash, garbage output, a
// background child) reported and never applied; a value with shell metacharacters arriving literally; the
// knowledge base fed back and quoted by the next diagnose. PyTorch workloads:
// tests/workloads/optimize_workloads.py.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli_test.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

namespace cann_debug::testing {
namespace {

const fs::path kSource(CANN_DEBUG_SOURCE_DIR);

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

class OptimizeCli : public CliTest {
 protected:
  OptimizeCli() : CliTest("optimize") {}

  void SetUp() override {
    CliTest::SetUp();
    // The real diagnosis of the run the workload reproduces.
    ASSERT_EQ(run({"diagnose", "--input", (kSource / "samples/training-lr-too-high").string(), "--output",
                   (scratch_ / "diag").string(), "--kb-outcomes", ""}),
              0)
        << child_->err();
    report_ = json::parse(slurp(scratch_ / "diag/report.json"));
    ASSERT_EQ(report_["diagnosis"]["root_causes"][0]["id"], "lr_too_high");
  }

  /// The diagnosis with suggestions of this test's own (their patch sets the workload's mode), after the
  /// report's real ones when `keep_real`.
  fs::path diagnosis_with(const std::vector<std::pair<std::string, json>>& suggestions,
                          bool keep_real = false) {
    json doc = report_;
    if (!keep_real) doc["suggestions"] = json::array();
    for (const auto& [name, patch] : suggestions)
      doc["suggestions"].push_back({{"root_cause", "lr_too_high"},
                                    {"id", "lr_too_high/" + name},
                                    {"title", name},
                                    {"config_patch", patch},
                                    {"expected_improvement", 0.5},
                                    {"improvement_source", "prior"},
                                    {"target_metric", "loss.final_over_initial"}});
    const fs::path p = scratch_ / "diagnosis.json";
    std::ofstream(p) << doc.dump(2);
    return p;
  }

  std::string workload() const {
    return fmt::format("/bin/sh {} {{mode}} {{lr}} {{output}} {} [{{note}}]",
                       (kSource / "tests/data/optimize/workload.sh").string(),
                       (kSource / "samples").string());
  }

  json optimize(std::vector<std::string> extra, int expected_rc) {
    std::vector<std::string> args = {"optimize",
                                     "--workload",
                                     workload(),
                                     "--baseline",
                                     "mode=auto",
                                     "--baseline",
                                     "lr=1.2",
                                     "--sandbox-validate",
                                     "--json",
                                     "--work",
                                     (scratch_ / "runs").string(),
                                     "--kb-outcomes",
                                     (scratch_ / "kb/outcomes.json").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const int rc = run(args, std::chrono::seconds(300));
    EXPECT_EQ(rc, expected_rc) << child_->err();
    try {
      return json::parse(child_->out());
    } catch (const json::parse_error&) {
      ADD_FAILURE() << "not JSON: " << child_->out() << "\n" << child_->err();
      return json::object();
    }
  }

  static const json& suggestion(const json& doc, const std::string& name) {
    for (const auto& s : doc["suggestions"])
      if (s["template"] == name) return s;
    throw std::runtime_error("no suggestion " + name);
  }

  json report_;
};

TEST_F(OptimizeCli, AFixIsValidatedAppliedRolledBackAndFedBack) {
  // The report's own suggestions (use_customary_learning_rate is the one this workload takes, as {lr}: SGD
  // at 1.2 is twelve times its customary 0.1), one that keeps the rate as it was and one that cuts it too
  // little.
  const fs::path diagnosis =
      diagnosis_with({{"keep_rate", {{"lr", 1.2}}}, {"mild_rate_cut", {{"lr", 0.84}}}}, true);
  const fs::path config = scratch_ / "train.yaml";
  const std::string original =
      "# my run\noptimizer:\n  name: sgd\n  lr: 1.2   # from the sweep\nsteps: 100\n";
  std::ofstream(config) << original;
  const json doc = optimize({"--diagnosis", diagnosis.string(), "--repeats", "2", "--suggestions", "5",
                             "--apply", config.string(), "--feedback"},
                            0);
  EXPECT_EQ(doc["baseline"]["top_causes"], json::array({"lr_too_high"}));
  const json& fix = suggestion(doc, "use_customary_learning_rate");
  EXPECT_EQ(fix["validated"], true) << fix.dump(2);
  EXPECT_EQ(fix["root_cause_gone"], true);
  EXPECT_EQ(fix["target_metric"], "loss.final_over_initial");
  EXPECT_GT(fix["measured_improvement"].get<double>(),
            0.5);  // the healthy run's loss falls, the fault's climbs
  ASSERT_EQ(fix["runs"].size(), 2u);
  EXPECT_EQ(fix["runs"][0]["argv"][3], "0.1");  // SGD's customary rate
  const json& keep = suggestion(doc, "keep_rate");
  EXPECT_EQ(keep["validated"], false);
  EXPECT_EQ(keep["root_cause_gone"], false);
  EXPECT_NEAR(keep["measured_improvement"].get<double>(), 0.0, 1e-9);
  EXPECT_THAT(keep["verdict"].get<std::string>(), HasSubstr("not validated"));
  // Suggestions the workload cannot take are listed with the reason.
  EXPECT_EQ(suggestion(doc, "enable_gradient_clipping")["applicable"], false);
  EXPECT_EQ(doc["best"], "lr_too_high/use_customary_learning_rate");

  // Applied: only the patched key changed, the comments kept; the rollback restores it byte for byte.
  EXPECT_EQ(doc["applied"]["suggestion"], "lr_too_high/use_customary_learning_rate");
  EXPECT_EQ(slurp(config),
            "# my run\noptimizer:\n  name: sgd\n  lr: 0.1   # from the sweep\nsteps: 100\nlr: 0.1\n");
  ASSERT_EQ(run({"optimize", "--rollback", config.string()}), 0) << child_->err();
  EXPECT_EQ(slurp(config), original);

  // A cut to 0.84 leaves the rate still too high: measured as no help.
  const json& mild = suggestion(doc, "mild_rate_cut");
  EXPECT_EQ(mild["validated"], false);
  EXPECT_EQ(mild["root_cause_gone"], false);

  // Fed back: the outcomes hold the three trials, and the next diagnosis quotes the measured gain.
  const json kb = json::parse(slurp(scratch_ / "kb/outcomes.json"));
  EXPECT_EQ(kb["outcomes"].size(), 3u);
  EXPECT_TRUE(kb["problems"].empty());
  ASSERT_EQ(run({"diagnose", "--input", (kSource / "samples/training-lr-too-high").string(), "--json",
                 "--kb-outcomes", (scratch_ / "kb/outcomes.json").string()}),
            0)
      << child_->err();
  const json next = json::parse(child_->out());
  bool quoted = false;
  for (const auto& s : next["suggestions"]) {
    if (s["id"] != "lr_too_high/use_customary_learning_rate") continue;
    quoted = true;
    EXPECT_EQ(s["improvement_source"], "history");
    EXPECT_NEAR(s["expected_improvement"].get<double>(), fix["measured_improvement"].get<double>(), 1e-9);
    EXPECT_EQ(s["history"]["same_context"], true);
    EXPECT_EQ(s["history"]["successes"], 1);
  }
  EXPECT_TRUE(quoted);
}

TEST_F(OptimizeCli, MisbehavingWorkloadsAreReportedAndNothingIsApplied) {
  const fs::path diagnosis = diagnosis_with({{"hangs", {{"mode", "hang"}}},
                                             {"crashes", {{"mode", "crash"}}},
                                             {"garbage", {{"mode", "garbage"}}},
                                             {"forks", {{"mode", "fork"}}}});
  const fs::path config = scratch_ / "train.json";
  std::ofstream(config) << "{\"mode\": \"fault\"}\n";
  const json doc = optimize({"--diagnosis", diagnosis.string(), "--repeats", "1", "--timeout", "2s",
                             "--suggestions", "4", "--apply", config.string(), "--feedback"},
                            1);
  EXPECT_TRUE(doc["best"].is_null());
  EXPECT_TRUE(doc["applied"].is_null());
  EXPECT_EQ(slurp(config), "{\"mode\": \"fault\"}\n");
  EXPECT_FALSE(fs::exists(config.string() + ".cann-debug-rollback.json"));
  EXPECT_THAT(suggestion(doc, "hangs")["runs"][0]["ended"].get<std::string>(), HasSubstr("timed out after"));
  EXPECT_THAT(suggestion(doc, "crashes")["runs"][0]["ended"].get<std::string>(),
              HasSubstr("killed by SIGSEGV"));
  EXPECT_EQ(suggestion(doc, "crashes")["runs"][0]["stderr_tail"], "about to crash");
  EXPECT_THAT(suggestion(doc, "forks")["runs"][0]["ended"].get<std::string>(),
              HasSubstr("left processes running"));
  // Garbage output still gets a diagnosis (of nothing): no target metric, so neither validated nor "gone".
  const json& garbage = suggestion(doc, "garbage");
  EXPECT_EQ(garbage["validated"], false);
  EXPECT_EQ(garbage["root_cause_gone"], false);
  EXPECT_THAT(
      garbage["verdict"].get<std::string>(),
      HasSubstr("loss.final_over_initial was measured in 0 of 1 repeats: its runs' output does not hold it"));
  for (const auto& s : doc["suggestions"]) EXPECT_EQ(s["validated"], false) << s["template"];
  EXPECT_THAT(child_->err(), HasSubstr("no suggestion was validated"));
  // Nothing helped: the problem is registered with what was tried.
  const json kb = json::parse(slurp(scratch_ / "kb/outcomes.json"));
  ASSERT_EQ(kb["problems"].size(), 1u);
  EXPECT_EQ(kb["problems"][0]["root_cause"], "lr_too_high");
  EXPECT_EQ(kb["problems"][0]["tried"].size(), 4u);
}

TEST_F(OptimizeCli, AValueWithShellMetacharactersArrivesAsOneLiteralArgument) {
  const std::string evil = "x; touch pwned $(touch pwned2) `touch pwned3` && echo owned > owned.txt";
  const fs::path diagnosis = diagnosis_with({{"noted", {{"mode", "fixed"}, {"note", evil}}}});
  const json doc = optimize({"--diagnosis", diagnosis.string(), "--repeats", "1"}, 0);
  const json& run = suggestion(doc, "noted")["runs"][0];
  EXPECT_EQ(run["argv"].back(), evil);
  const fs::path dir = run["dir"].get<std::string>();
  EXPECT_EQ(slurp(dir / "output/note.txt"), evil);
  for (const char* f : {"pwned", "pwned2", "pwned3", "owned.txt"}) {
    EXPECT_FALSE(fs::exists(dir / f)) << f;
    EXPECT_FALSE(fs::exists(scratch_ / f)) << f;
  }
}

TEST_F(OptimizeCli, NothingRunsWhenTheWorkloadCanTakeNoSuggestion) {
  // The report's own suggestions patch lr, lr_schedule and clip_threshold; this template takes none of them.
  const std::string fixed =
      fmt::format("/bin/sh {} auto 1.2 {{output}} {}", (kSource / "tests/data/optimize/workload.sh").string(),
                  (kSource / "samples").string());
  EXPECT_EQ(run({"optimize", "--diagnosis", (scratch_ / "diag/report.json").string(), "--workload", fixed,
                 "--sandbox-validate", "--work", (scratch_ / "runs").string()}),
            0);
  EXPECT_THAT(child_->err(), HasSubstr("the workload can take none of the suggestions"));
  EXPECT_THAT(child_->err(),
              HasSubstr("lr_too_high/use_customary_learning_rate: the workload takes none of its keys"));
  EXPECT_FALSE(fs::exists(scratch_ / "runs/00-baseline-r1"));
}

TEST_F(OptimizeCli, TheBaselineFailingIsAnErrorThatSaysWhy) {
  const fs::path diagnosis = diagnosis_with({{"fix", {{"mode", "fixed"}}}});
  const json doc =
      optimize({"--diagnosis", diagnosis.string(), "--repeats", "1", "--baseline", "mode=crash"}, 1);
  EXPECT_THAT(doc["error"].get<std::string>(), HasSubstr("the baseline run failed"));
  EXPECT_THAT(doc["error"].get<std::string>(), HasSubstr("killed by SIGSEGV"));
}

TEST_F(OptimizeCli, ThePlanShowsEachRunsArgvWithoutRunningAndRefusesWhatAWorkloadCannotTake) {
  // The report's real suggestions: use_customary_learning_rate patches lr, which the workload takes as {lr};
  // enable_gradient_clipping patches clip_threshold, which it does not take.
  ASSERT_EQ(run({"optimize", "--diagnosis", (scratch_ / "diag/report.json").string(), "--workload",
                 workload(), "--baseline", "mode=auto", "--baseline", "lr=1.2", "--json"}),
            0)
      << child_->err();
  const json doc = json::parse(child_->out());
  ASSERT_GE(doc["plan"].size(), 3u);
  EXPECT_EQ(doc["plan"][0]["id"], "baseline");
  EXPECT_EQ(doc["plan"][0]["argv"][2], "auto");
  EXPECT_EQ(doc["plan"][0]["argv"][3], "1.2");
  bool lower = false, clipping = false;
  for (const auto& p : doc["plan"]) {
    if (p["id"] == "lr_too_high/use_customary_learning_rate") {
      lower = true;
      EXPECT_EQ(p["argv"][3], "0.1");
    }
    if (p["id"] == "lr_too_high/enable_gradient_clipping") {
      clipping = true;
      EXPECT_EQ(p["applicable"], false);
      EXPECT_THAT(p["reason"].get<std::string>(),
                  HasSubstr("the workload takes none of its keys (clip_threshold)"));
    }
  }
  EXPECT_TRUE(lower && clipping) << doc.dump(2);
  EXPECT_FALSE(fs::exists(scratch_ / "runs"));
  // A bad template is a usage error that names the byte.
  EXPECT_EQ(
      run({"optimize", "--diagnosis", (scratch_ / "diag/report.json").string(), "--workload", "train 'open"}),
      2);
  EXPECT_THAT(child_->err(), HasSubstr("--workload: byte 6"));
}

}  // namespace
}  // namespace cann_debug::testing
