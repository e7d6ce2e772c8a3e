// The knowledge base's measured outcomes (cann-debug.kb-outcomes/1): Beta posteriors and gains per
// suggestion, root cause and context; problems nothing fixed; errors that name the file and the JSON pointer;
// concurrent writers that lose nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "cann_debug/kb_outcomes.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::HasSubstr;

namespace cann_debug::kb {
namespace {

class Outcomes : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("kb_outcomes_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    path_ = (dir_ / "sub" / "outcomes.json").string();
  }
  void TearDown() override { fs::remove_all(dir_); }
  void write(const std::string& text) {
    fs::create_directories(fs::path(path_).parent_path());
    std::ofstream(path_) << text;
  }
  std::string load_error() {
    try {
      OutcomeStore::load(path_);
    } catch (const std::runtime_error& e) {
      return e.what();
    }
    return "";
  }
  fs::path dir_;
  std::string path_;
};

/// The context of a run configured as `config` (config.json) in `scenario`.
OutcomeContext context_of(const json& config, std::string_view scenario) {
  return OutcomeContext::of_run(RunConfiguration{"config.json", config}, scenario);
}

OutcomeContext mlp() {
  return context_of(json::parse(R"({"model": {"type": "MLP"}, "steps": 100})"), "training");
}

TEST(OutcomeContext, IsReadFromTheRunsConfig) {
  EXPECT_EQ(mlp().describe(), "training/mlp/unknown/unknown/1");
  const auto c = context_of(
      json::parse(
          R"({"model": {"name": "gpt"}, "device": "cuda:0", "framework": "PyTorch", "world_size": 16})"),
      "distributed");
  EXPECT_EQ(c.describe(), "distributed/gpt/gpu/pytorch/9-64");
  EXPECT_EQ(context_of(json(), "inference").describe(), "inference/unknown/unknown/unknown/unknown");
  EXPECT_EQ(context_of(json::parse(R"({"device": "npu:3", "world_size": 2048})"), "").describe(),
            "unknown/unknown/npu/unknown/>1024");
}

TEST_F(Outcomes, AMissingFileIsAnEmptyStore) {
  const auto store = OutcomeStore::load(path_);
  EXPECT_TRUE(store.outcomes().empty());
  EXPECT_FALSE(store.find("raise_clip_threshold", "grad_clip_too_low", mlp()));
}

TEST_F(Outcomes, TrialsUpdateABetaPosteriorAndTheMeanGain) {
  OutcomeStore::update(path_, [](OutcomeStore& s) {
    s.record("raise_clip_threshold", "grad_clip_too_low", mlp(), true, 0.6, "t1");
    s.record("raise_clip_threshold", "grad_clip_too_low", mlp(), true, 0.4, "t2");
    s.record("raise_clip_threshold", "grad_clip_too_low", mlp(), false, NAN, "t3");  // its runs failed
  });
  const auto store = OutcomeStore::load(path_);
  const auto m = store.find("raise_clip_threshold", "grad_clip_too_low", mlp());
  ASSERT_TRUE(m);
  EXPECT_TRUE(m->same_context);
  EXPECT_EQ(m->outcome.trials, 3u);
  EXPECT_EQ(m->outcome.successes, 2u);
  EXPECT_EQ(m->outcome.measured, 2u);
  EXPECT_DOUBLE_EQ(m->outcome.alpha(), 3.0);
  EXPECT_DOUBLE_EQ(m->outcome.beta(), 2.0);
  EXPECT_DOUBLE_EQ(m->outcome.success_probability(), 0.6);
  EXPECT_DOUBLE_EQ(m->outcome.mean_gain(), 0.5);
  EXPECT_EQ(m->outcome.updated, "t3");
  // Human-readable: the derived figures are in the file too.
  std::ifstream in(path_);
  const json doc = json::parse(in);
  EXPECT_EQ(doc["format"], "cann-debug.kb-outcomes/1");
  EXPECT_DOUBLE_EQ(doc["outcomes"][0]["success_probability"].get<double>(), 0.6);
  EXPECT_DOUBLE_EQ(doc["outcomes"][0]["mean_gain"].get<double>(), 0.5);
}

TEST_F(Outcomes, OtherContextsArePooledWhenTheRunsOwnHasNone) {
  const auto resnet = context_of(json::parse(R"({"model": {"type": "resnet"}, "steps": 9})"), "training");
  OutcomeStore store;
  store.record("s", "c", resnet, true, 0.2, "t");
  store.record("s", "c", context_of(json(), "training"), false, -0.1, "t");
  const auto m = store.find("s", "c", mlp());
  ASSERT_TRUE(m);
  EXPECT_FALSE(m->same_context);
  EXPECT_EQ(m->outcome.trials, 2u);
  EXPECT_NEAR(m->outcome.mean_gain(), 0.05, 1e-12);
  EXPECT_TRUE(store.find("s", "c", resnet)->same_context);
  EXPECT_FALSE(store.find("s", "other cause", mlp()));
}

TEST_F(Outcomes, ProblemsNothingFixedAreKept) {
  OutcomeStore::update(path_, [](OutcomeStore& s) {
    ProblemRecord p;
    p.root_cause = "unshuffled_data";
    p.context = mlp();
    p.symptoms = {{"loss.epoch_lag_autocorr", 0.4}};
    p.tried = json::array(
        {{{"suggestion", "enable_shuffling"}, {"measured_improvement", 0.01}, {"why", "too small"}}});
    p.registered = "now";
    s.register_problem(p);
  });
  const auto store = OutcomeStore::load(path_);
  ASSERT_EQ(store.problems().size(), 1u);
  EXPECT_EQ(store.problems()[0].root_cause, "unshuffled_data");
  EXPECT_EQ(store.problems()[0].tried[0]["why"], "too small");
  EXPECT_EQ(store.problems()[0].context, mlp());
}

TEST_F(Outcomes, ErrorsNameTheFileAndWhere) {
  write("{\"format\": \"cann-debug.kb-outcomes/1\", \"outcomes\": [");
  EXPECT_THAT(load_error(), HasSubstr(path_ + ": byte "));
  write(R"({"format": "cann-debug.kb-outcomes/2"})");
  EXPECT_THAT(load_error(), HasSubstr("at /format: expected \"cann-debug.kb-outcomes/1\""));
  write(R"({"format": "cann-debug.kb-outcomes/1", "outcomes": [{"suggestion": "s", "root_cause": "c",
           "context": {"scenario": "training", "model": "mlp", "hardware": "cpu", "framework": "pytorch", "scale": "1"},
           "trials": 1, "successes": 2, "gain_sum": 0}]})");
  EXPECT_THAT(load_error(), HasSubstr("at /outcomes/0/successes: expected at most \"trials\""));
  write(R"({"format": "cann-debug.kb-outcomes/1", "outcomes": [{"suggestion": "s", "root_cause": "c",
           "context": {"scenario": "training"}, "trials": 1, "successes": 0, "gain_sum": 0}]})");
  EXPECT_THAT(load_error(), HasSubstr("at /outcomes/0/context/model: expected \"model\" (missing)"));
}

TEST_F(Outcomes, ConcurrentWritersLoseNoUpdate) {
  constexpr int kWriters = 4, kEach = 25;
  std::vector<pid_t> pids;
  for (int w = 0; w < kWriters; ++w) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      for (int i = 0; i < kEach; ++i)
        OutcomeStore::update(path_,
                             [&](OutcomeStore& s) { s.record("s", "c", mlp(), i % 2 == 0, 0.1, "t"); });
      ::_exit(0);
    }
    pids.push_back(pid);
  }
  for (pid_t pid : pids) {
    int status = 0;
    ::waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  const auto m = OutcomeStore::load(path_).find("s", "c", mlp());
  ASSERT_TRUE(m);
  EXPECT_EQ(m->outcome.trials, static_cast<std::size_t>(kWriters * kEach));
  EXPECT_EQ(m->outcome.successes, static_cast<std::size_t>(kWriters * ((kEach + 1) / 2)));
  // No temporary file is left behind.
  for (const auto& e : fs::directory_iterator(fs::path(path_).parent_path()))
    EXPECT_THAT(e.path().filename().string(), ::testing::AnyOf("outcomes.json", "outcomes.json.lock"));
}

}  // namespace
}  // namespace cann_debug::kb
