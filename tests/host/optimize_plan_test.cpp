// What `optimize` decides before it runs anything: the workload template's argv (no shell, placeholders,
// optional groups), config patches (types, JSON and YAML merges, apply and roll back byte for byte), which
// suggestions a workload can take, and the improvement estimate.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "config_patch.hpp"
#include "improvement.hpp"
#include "optimize_plan.hpp"
#include "workload_template.hpp"

namespace fs = std::filesystem;
using nlohmann::json;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

namespace cann_debug::cli {
namespace {

std::vector<std::string> expand(const std::string& text, const std::map<std::string, std::string>& values) {
  return WorkloadTemplate::parse(text).expand([&](const std::string& name) -> std::optional<std::string> {
    auto it = values.find(name);
    return it == values.end() ? std::nullopt : std::optional(it->second);
  });
}

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void write(const fs::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

class ScratchDir : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("optimize_plan_test_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

// ---- the template ----

TEST(WorkloadTemplate, SplitsLikeAShellButExpandsNothing) {
  EXPECT_THAT(expand(R"(python3 "my script.py" --name 'a b' x\ y $HOME *.py "say \"hi\"")", {}),
              ElementsAre("python3", "my script.py", "--name", "a b", "x y", "$HOME", "*.py", "say \"hi\""));
}

TEST(WorkloadTemplate, AValueWithShellMetacharactersStaysOneLiteralArgument) {
  const std::string evil = "0.1; rm -rf / $(reboot) `id` | tee x > y && z";
  EXPECT_THAT(expand("train --lr={lr} {lr}", {{"lr", evil}}), ElementsAre("train", "--lr=" + evil, evil));
}

TEST(WorkloadTemplate, PlaceholdersInsideQuotesAndDottedNames) {
  EXPECT_THAT(expand(R"(run "--set=optimizer.lr={optimizer.lr}" '{output}/x' {{literal}})",
                     {{"optimizer.lr", "0.03"}, {"output", "/o"}}),
              ElementsAre("run", "--set=optimizer.lr=0.03", "/o/x", "{literal}"));
  // Braces that are no placeholder stay as they are (a JSON argument).
  EXPECT_THAT(expand(R"(run --cfg '{"a": 1}')", {}), ElementsAre("run", "--cfg", R"({"a": 1})"));
}

TEST(WorkloadTemplate, OptionalGroupsAreLeftOutWhenAPlaceholderHasNoValue) {
  const std::string t =
      "train.py --fault x [--set lr={lr}] [--set clip_threshold={clip_threshold} --verbose] --output "
      "{output}";
  EXPECT_THAT(expand(t, {{"output", "/o"}}), ElementsAre("train.py", "--fault", "x", "--output", "/o"));
  EXPECT_THAT(
      expand(t, {{"output", "/o"}, {"clip_threshold", "null"}}),
      ElementsAre("train.py", "--fault", "x", "--set", "clip_threshold=null", "--verbose", "--output", "/o"));
  const auto parsed = WorkloadTemplate::parse(t);
  EXPECT_EQ(parsed.placeholders(), (std::set<std::string>{"clip_threshold", "lr", "output"}));
  EXPECT_EQ(parsed.required(), (std::set<std::string>{"output"}));
}

TEST(WorkloadTemplate, ARequiredPlaceholderWithoutAValueIsNamed) {
  try {
    expand("train --lr {lr}", {});
    FAIL() << "expanded without a value";
  } catch (const std::invalid_argument& e) {
    EXPECT_THAT(e.what(), HasSubstr("{lr} has no value"));
    EXPECT_THAT(e.what(), HasSubstr("--baseline lr=VALUE"));
  }
}

TEST(WorkloadTemplate, BadTemplatesNameTheByteOffset) {
  auto offset_of = [](const std::string& text) -> std::optional<std::size_t> {
    try {
      WorkloadTemplate::parse(text);
    } catch (const TemplateError& e) {
      return e.offset;
    }
    return std::nullopt;
  };
  EXPECT_EQ(offset_of("run 'open"), 4u);
  EXPECT_EQ(offset_of("run \"open"), 4u);
  EXPECT_EQ(offset_of("run [--a {x} [--b {y}]]"), 13u);  // groups do not nest
  EXPECT_EQ(offset_of("run [--flag]"), 4u);              // a group needs a placeholder
  EXPECT_EQ(offset_of("run [--a {x}"), 4u);              // not closed
  EXPECT_EQ(offset_of("run --a]"), 7u);                  // ']' without '['
  EXPECT_EQ(offset_of("run {}"), 4u);
  EXPECT_EQ(offset_of("   "), 0u);
  EXPECT_EQ(offset_of("[run {x}]"), 0u);  // the command itself is not optional
  EXPECT_FALSE(offset_of("run x"));
}

// ---- patches ----

TEST(ConfigPatch, FlattensToDottedKeysAndFormatsArguments) {
  const auto flat =
      flatten_patch(json::parse(R"({"optimizer": {"lr": 0.03}, "lr": 0.03, "env": {"OMP_NUM_THREADS": 2},
                                                   "clip_threshold": null, "exclude": ["a", "b"]})"));
  EXPECT_EQ(flat.size(), 5u);
  EXPECT_EQ(argument_text(flat.at("optimizer.lr")), "0.03");
  EXPECT_EQ(argument_text(flat.at("env.OMP_NUM_THREADS")), "2");
  EXPECT_EQ(argument_text(flat.at("clip_threshold")), "null");
  EXPECT_EQ(argument_text(flat.at("exclude")), R"(["a","b"])");
  EXPECT_EQ(argument_text(json(1e-4)), "0.0001");
  EXPECT_EQ(argument_text(json(true)), "true");
  EXPECT_THROW(argument_text(json(std::string("a\0b", 3))), std::invalid_argument);
}

TEST(ConfigPatch, ValuesOfAnotherTypeThanTheTemplateDeclaresAreRefused) {
  const json tpl_patch =
      json::parse(R"({"optimizer": {"lr": "{{new_lr}}"}, "shuffle": true, "sampler": "balanced",
                                         "link": "{{link}}"})");
  const json params =
      json::parse(R"({"new_lr": {"sources": [{"from": "feature", "feature": "lr.peak", "scale": 0.3},
                                                             {"default": 0.001}]},
                                      "link": {"sources": [{"from": "evidence", "kind": "link"}]}})");
  const auto declared = declared_types(tpl_patch, params);
  EXPECT_EQ(declared.at("optimizer.lr"), "number");
  EXPECT_EQ(declared.at("shuffle"), "boolean");
  EXPECT_EQ(declared.at("link"), "scalar");
  EXPECT_TRUE(type_problems(json::parse(R"({"optimizer": {"lr": 0.01}, "shuffle": true, "link": "hccs:0"})"),
                            declared)
                  .empty());
  const auto problems = type_problems(
      json::parse(R"({"optimizer": {"lr": "0.01; rm -rf /"}, "shuffle": "yes", "extra": 1})"), declared);
  EXPECT_THAT(problems, ElementsAre(HasSubstr("extra: the template's patch has no such key"),
                                    HasSubstr("optimizer.lr: expected a number, got string"),
                                    HasSubstr("shuffle: expected a boolean, got string")));
}

TEST(ConfigPatch, JsonKeepsKeyOrderAndIndentation) {
  const std::string original = "{\n    \"lr\": 0.5,\n    \"model\": {\"type\": \"mlp\"},\n    \"z\": 1\n}\n";
  // RFC 7386: a null removes the key.
  const auto out = patch_config_text(
      original, false, json::parse(R"({"lr": 0.05, "model": {"depth": 3}, "z": null, "a": [1]})"), "c.json");
  EXPECT_EQ(
      out.text,
      "{\n    \"lr\": 0.05,\n    \"model\": {\n        \"type\": \"mlp\",\n        \"depth\": 3\n    },\n"
      "    \"a\": [\n        1\n    ]\n}\n");
}

TEST(ConfigPatch, YamlKeepsEveryLineThePatchDoesNotTouch) {
  const std::string original =
      "# training config\n"
      "optimizer:\n"
      "  name: sgd   # plain SGD\n"
      "  lr: 0.5\n"
      "\n"
      "batch_size: 32\n"
      "data:\n"
      "  shuffle: false\n";
  const auto out = patch_config_text(
      original, true,
      json::parse(
          R"({"optimizer": {"lr": 0.05, "momentum": 0.9}, "clip_threshold": 1.5, "data": {"shuffle": true},
                      "batch_size": null, "absent": null})"),
      "c.yaml");
  EXPECT_TRUE(out.formatting_kept);
  EXPECT_EQ(out.text,
            "# training config\n"
            "optimizer:\n"
            "  name: sgd   # plain SGD\n"
            "  lr: 0.05\n"
            "  momentum: 0.9\n"
            "\n"
            "data:\n"
            "  shuffle: true\n"
            "clip_threshold: 1.5\n");
}

TEST(ConfigPatch, YamlItCannotEditInPlaceIsReEmitted) {
  const auto out = patch_config_text("optimizer: {name: sgd, lr: 0.5}\n", true,
                                     json::parse(R"({"optimizer": {"lr": 0.05}})"), "c.yaml");
  EXPECT_FALSE(out.formatting_kept);
  EXPECT_THAT(out.text, HasSubstr("lr: 0.05"));
  EXPECT_THAT(out.text, HasSubstr("name: sgd"));
}

TEST(ConfigPatch, BadConfigsNameTheFileAndPlace) {
  try {
    patch_config_text("{\"lr\": 0.5,,}", false, json::object(), "train.json");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("train.json: byte 12"));
  }
  try {
    patch_config_text("a: [1, 2\nb: 3\n", true, json::object(), "train.yaml");
    FAIL();
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("train.yaml:"));
  }
}

TEST(ConfigPatch, YamlValuesReadAsJsonForBaselineValues) {
  const json v = config_values("lr: 0.5\nname: sgd\nquoted: \"0.5\"\nclip: null\non: true\nlayers: [1, 2]\n",
                               true, "c.yaml");
  EXPECT_EQ(
      v, json::parse(
             R"({"lr": 0.5, "name": "sgd", "quoted": "0.5", "clip": null, "on": true, "layers": [1, 2]})"));
  EXPECT_EQ(config_values(R"({"lr": 0.5})", false, "c.json").at("lr"), 0.5);
  EXPECT_THROW(config_values("a: [", true, "c.yaml"), std::runtime_error);
}

TEST_F(ScratchDir, ApplyThenRollbackRestoresTheFileByteForByte) {
  const fs::path config = dir_ / "train.yaml";
  const std::string original = "# keep me\r\nlr: 0.5   # too high\r\nsteps: 100\r\n\r\n# the end, no newline";
  write(config, original);
  const auto applied =
      apply_patch_to_file(config.string(), json::parse(R"({"lr": 0.05})"), "lr_too_high/lower_learning_rate");
  EXPECT_TRUE(fs::exists(applied.rollback));
  EXPECT_THAT(slurp(config), HasSubstr("lr: 0.05   # too high"));
  // A second apply before a rollback is refused: the first rollback would be lost.
  EXPECT_THROW(apply_patch_to_file(config.string(), json::parse(R"({"lr": 0.01})"), "x"), std::runtime_error);
  rollback_file(config.string(), false);
  EXPECT_EQ(slurp(config), original);
  EXPECT_FALSE(fs::exists(applied.rollback));
  EXPECT_THROW(rollback_file(config.string(), false), std::runtime_error);  // nothing to roll back
}

TEST_F(ScratchDir, RollbackRefusesToLoseLaterEditsUnlessForced) {
  const fs::path config = dir_ / "train.json";
  write(config, "{\"lr\": 0.5}\n");
  apply_patch_to_file(config.string(), json::parse(R"({"lr": 0.05})"), "s");
  write(config, "{\"lr\": 0.05, \"edited\": true}\n");
  try {
    rollback_file(config.string(), false);
    FAIL() << "rolled back over a later edit";
  } catch (const std::runtime_error& e) {
    EXPECT_THAT(e.what(), HasSubstr("changed since the patch was applied"));
  }
  rollback_file(config.string(), true);
  EXPECT_EQ(slurp(config), "{\"lr\": 0.5}\n");
}

// ---- which suggestions a workload can take ----

json diagnosis_with(const std::vector<json>& suggestions) {
  return {{"scenario", "training"}, {"suggestions", suggestions}};
}

TEST(PlanCandidates, ASuggestionIsTriedOnlyWhenTheWorkloadCanReceiveItsPatch) {
  WorkloadInterface w;
  w.command = WorkloadTemplate::parse("train.py [--set clip_threshold={clip_threshold}] --output {output}");
  TemplateCatalog catalog;
  catalog.templates = json::parse(R"({
    "raise_clip_threshold": {"config_patch": {"clip_threshold": "{{new_clip}}"}, "target_metric": "loss.final_over_initial",
                             "parameters": {"new_clip": {"sources": [{"from": "feature", "feature": "grad_norm.median"}]}}},
    "lower_learning_rate": {"config_patch": {"lr": "{{new_lr}}"}, "target_metric": "loss.final_over_initial",
                            "parameters": {"new_lr": {"sources": [{"default": 0.001}]}}},
    "normalize": {"config_patch": {}, "target_metric": "x"}})");
  const json d = diagnosis_with({
      {{"id", "grad_clip_too_low/raise_clip_threshold"},
       {"root_cause", "grad_clip_too_low"},
       {"config_patch", {{"clip_threshold", 2.5}}},
       {"target_metric", "loss.final_over_initial"}},
      {{"id", "grad_clip_too_low/lower_learning_rate"},
       {"config_patch", {{"lr", 0.01}}},
       {"target_metric", "loss.final_over_initial"}},
      {{"id", "grad_clip_too_low/raise_clip_threshold_typo"},
       {"config_patch", {{"clip_threshold", "2.5 && reboot"}}},
       {"target_metric", "loss.final_over_initial"}},
      {{"id", "x/normalize"}, {"config_patch", json::object()}},
  });
  catalog.templates["raise_clip_threshold_typo"] = catalog.templates["raise_clip_threshold"];
  const auto c = plan_candidates(d, catalog, w, {}, 3);
  ASSERT_EQ(c.size(), 5u);
  EXPECT_TRUE(c[0].is_baseline());
  EXPECT_TRUE(c[1].applicable) << c[1].reason;
  EXPECT_EQ(c[1].root_cause, "grad_clip_too_low");
  EXPECT_EQ(c[1].template_id, "raise_clip_threshold");
  EXPECT_FALSE(c[2].applicable);
  EXPECT_THAT(c[2].reason, HasSubstr("takes none of its keys (lr)"));
  EXPECT_EQ(c[2].root_cause, "grad_clip_too_low");  // from the id when the suggestion does not say
  EXPECT_FALSE(c[3].applicable);
  EXPECT_THAT(c[3].reason, HasSubstr("clip_threshold: expected a number, got string"));
  EXPECT_FALSE(c[4].applicable);
  EXPECT_THAT(c[4].reason, HasSubstr("no config patch"));
  // --env-prefix passes every key.
  w.env_prefix = "TRAIN_";
  EXPECT_TRUE(plan_candidates(d, catalog, w, {}, 3)[2].applicable);
  // --only and --suggestions.
  EXPECT_EQ(plan_candidates(d, catalog, w, {"lower_learning_rate"}, 3).size(), 2u);
  EXPECT_THAT(plan_candidates(d, catalog, w, {}, 1)[2].reason, HasSubstr("beyond --suggestions 1"));
}

TEST_F(ScratchDir, InvocationsFillPlaceholdersConfigCopiesAndEnvironment) {
  const fs::path config = dir_ / "cfg.json";
  write(config, "{\"lr\": 0.5, \"clip_threshold\": 0.01}\n");
  WorkloadInterface w;
  w.command =
      WorkloadTemplate::parse("train --config {config} --clip {clip_threshold} --out {output} [--lr {lr}]");
  w.config_file = config.string();
  w.config = RunConfiguration{config.string(), json::parse(slurp(config))};
  w.env_prefix = "APP_";
  Candidate base;
  base.id = "baseline";
  const auto b = invocation_of(base, w, (dir_ / "b").string(), 1);
  // Unpatched: the clip threshold is the config's, --lr comes from the config too (it holds lr).
  EXPECT_THAT(b.argv, ElementsAre("train", "--config", (dir_ / "b" / "cfg.json").string(), "--clip", "0.01",
                                  "--out", (dir_ / "b" / "output").string(), "--lr", "0.5"));
  EXPECT_EQ(slurp(dir_ / "b" / "cfg.json"), slurp(config));
  EXPECT_TRUE(b.env.empty());
  Candidate c;
  c.id = "grad_clip_too_low/raise_clip_threshold";
  c.patch = json::parse(R"({"clip_threshold": 2.5, "env": {"OMP_NUM_THREADS": 1}})");
  c.flat = flatten_patch(c.patch);
  const auto r = invocation_of(c, w, (dir_ / "c").string(), 2);
  EXPECT_EQ(r.argv[4], "2.5");
  EXPECT_EQ(json::parse(slurp(dir_ / "c" / "cfg.json")).at("clip_threshold"), 2.5);
  EXPECT_THAT(r.env, ElementsAre(std::pair<std::string, std::string>("APP_CLIP_THRESHOLD", "2.5"),
                                 std::pair<std::string, std::string>("OMP_NUM_THREADS", "1")));
  EXPECT_EQ(slurp(config), "{\"lr\": 0.5, \"clip_threshold\": 0.01}\n");  // the user's file is untouched
}

TEST(LoadDiagnosis, NamesTheFileAndWhatIsWrong) {
  const fs::path p = fs::temp_directory_path() / ("diag_" + std::to_string(::getpid()) + ".json");
  write(p, R"({"suggestions": [{"id": 3}]})");
  EXPECT_THAT(
      [&] {
        try {
          load_diagnosis(p.string());
        } catch (const std::runtime_error& e) {
          return std::string(e.what());
        }
        return std::string();
      }(),
      HasSubstr("at /suggestions/0: expected an object with a string \"id\""));
  write(p, "{\"suggestions\": [");
  EXPECT_THROW(load_diagnosis(p.string()), std::runtime_error);
  fs::remove(p);
}

// ---- improvement ----

TEST(Improvement, RelativeToTheBaselineInTheDirectionThatIsBetter) {
  EXPECT_DOUBLE_EQ(relative_improvement(2.0, 1.0, Better::kLower), 0.5);
  EXPECT_DOUBLE_EQ(relative_improvement(2.0, 3.0, Better::kLower), -0.5);
  EXPECT_DOUBLE_EQ(relative_improvement(100.0, 150.0, Better::kHigher), 0.5);
  EXPECT_DOUBLE_EQ(relative_improvement(-4.0, -1.0, Better::kCloserToZero), 0.75);
  EXPECT_DOUBLE_EQ(relative_improvement(NAN, 0.9, Better::kLower), 1.0);  // a NaN loss fixed
  EXPECT_DOUBLE_EQ(relative_improvement(0.9, INFINITY, Better::kLower), -1.0);
  EXPECT_DOUBLE_EQ(relative_improvement(0.0, 0.0, Better::kLower), 0.0);
  EXPECT_EQ(parse_better("higher"), Better::kHigher);
  EXPECT_FALSE(parse_better("up"));
}

TEST(Improvement, MeanWithAStudentTInterval) {
  const auto e = estimate({0.4, 0.5, 0.6});
  EXPECT_DOUBLE_EQ(e.mean, 0.5);
  ASSERT_TRUE(e.low && e.high);
  // sd 0.1, n 3: half-width t(2) * 0.1 / sqrt(3) = 4.303 * 0.0577
  EXPECT_NEAR(*e.low, 0.5 - 4.303 * 0.1 / std::sqrt(3.0), 1e-9);
  EXPECT_NEAR(*e.high, 0.5 + 4.303 * 0.1 / std::sqrt(3.0), 1e-9);
  EXPECT_FALSE(estimate({0.3}).low);
  EXPECT_EQ(estimate({}).n, 0u);
  EXPECT_DOUBLE_EQ(t_quantile_95(1000), 1.96);
}

TEST(Improvement, MannWhitneyTellsRunsThatAreReliablyBetter) {
  // Every candidate run better than every baseline run: U = n m, p = 1 / C(n + m, n).
  EXPECT_NEAR(mann_whitney_p({10, 11, 12}, {1, 2, 3}, Better::kLower), 1.0 / 20, 1e-12);
  EXPECT_NEAR(mann_whitney_p({10, 11, 12, 13, 14}, {1, 2, 3, 4, 5}, Better::kLower), 1.0 / 252, 1e-12);
  // One disturbed baseline run (its cold start hidden by a loaded machine) does not undo a clear fix.
  const std::vector<double> base = {47.7, 14.5, 1.0, 61.1, 39.5}, fixed = {0.51, 0.92, 2.27, 0.32, 0.30};
  EXPECT_LT(mann_whitney_p(base, fixed, Better::kLower), 0.01);
  EXPECT_NEAR(median({0.99, 0.94, -1.27, 0.99, 0.99}), 0.99, 1e-12);
  // The direction counts; a NaN is the worst value; no difference is no evidence.
  EXPECT_NEAR(mann_whitney_p({1, 2, 3}, {10, 11, 12}, Better::kHigher), 1.0 / 20, 1e-12);
  EXPECT_NEAR(mann_whitney_p({NAN, NAN, NAN}, {2.0, 2.1, 2.2}, Better::kLower), 1.0 / 20, 1e-12);
  EXPECT_GT(mann_whitney_p({1, 2, 3}, {1, 2, 3}, Better::kLower), 0.4);
  EXPECT_DOUBLE_EQ(mann_whitney_p({}, {1}, Better::kLower), 1.0);
  // Large samples: the normal approximation.
  std::vector<double> b(30), c(30);
  for (int i = 0; i < 30; ++i) {
    b[static_cast<std::size_t>(i)] = 100 + i;
    c[static_cast<std::size_t>(i)] = i;
  }
  EXPECT_LT(mann_whitney_p(b, c, Better::kLower), 1e-6);
}

}  // namespace
}  // namespace cann_debug::cli
