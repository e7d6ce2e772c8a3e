// Building a pipeline in code: the document matches what the YAML parser makes of the same pipeline,
// problems are reported at the builder's name and call number, overrides apply, and to_yaml() writes a
// pipeline the parser reads back to the same document (strings that look like numbers, booleans or
// variables stay strings).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "pipeline_builder.hpp"

namespace cann_debug::host {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

json summary(const PipelineDocument& doc) {
  json j = {{"shared", doc.shared_source_thread},
            {"queue_capacity", doc.queue_capacity},
            {"idle_interval_ns", doc.idle_interval_ns},
            {"plugin_paths", doc.plugin_paths}};
  for (const auto& c : doc.components) j["components"][c.id] = c.options_json();
  for (const auto& l : doc.links)
    j["links"].push_back(l.from.component + "." + l.from.port + " -> " + l.to.component + "." + l.to.port);
  return j;
}

TEST(PipelineBuilder, BuildsWhatTheParserMakesOfTheSameYaml) {
  Diagnostics diags;
  auto built = PipelineBuilder("<test>")
                   .shared_source_thread()
                   .add("jsonl/steps", {{"path", "/data/m.jsonl"}, {"optional", true}})
                   .add("training_features/main")
                   .link("jsonl/steps.records", "training_features/main.records")
                   .build(diags);
  ASSERT_TRUE(built) << diags.to_string();
  auto parsed = parse_pipeline_text(R"(version: 1
settings: { source_threads: shared }
components:
  jsonl/steps: { path: /data/m.jsonl, optional: true }
  training_features/main: {}
links:
  - jsonl/steps.records -> training_features/main.records
)",
                                    "p.yaml", {}, diags);
  ASSERT_TRUE(parsed) << diags.to_string();
  EXPECT_FALSE(diags.has_errors()) << diags.to_string();
  EXPECT_EQ(summary(*built), summary(*parsed));
  EXPECT_EQ(built->components[1].type, "training_features");
  EXPECT_EQ(built->components[1].name, "main");
}

TEST(PipelineBuilder, ReportsBadIdsOptionsAndLinksAtTheCallThatAddedThem) {
  Diagnostics diags;
  auto doc = PipelineBuilder("<infer>")
                 .add("no_slash")
                 .add("a/x", json::array({1, 2}))
                 .add("a/y")
                 .add("a/y")
                 .link("a/y.out", "nowhere")
                 .build(diags);
  EXPECT_FALSE(doc);
  const std::string text = diags.to_string();
  EXPECT_THAT(text, HasSubstr("<infer>:1:1: error: component id 'no_slash' must be 'type/name'"));
  EXPECT_THAT(text, HasSubstr("<infer>:2:1: error: a/x: options must be a JSON object, found array"));
  EXPECT_THAT(text, HasSubstr("<infer>:4:1: error: component 'a/y' is added twice"));
  EXPECT_THAT(text, HasSubstr("<infer>:5:1: error: malformed link 'a/y.out -> nowhere'"));
}

TEST(PipelineBuilder, AppliesOverridesLikeTheCommandLine) {
  Diagnostics diags;
  auto doc = PipelineBuilder("collect")
                 .add("procfs/live", {{"interval", 10000000}})
                 .build(diags, {"procfs/live.root=/fixture", "procfs/live.interval=5ms"});
  ASSERT_TRUE(doc) << diags.to_string();
  EXPECT_EQ(doc->components[0].options_json(), (json{{"interval", "5ms"}, {"root", "/fixture"}}));
  EXPECT_FALSE(PipelineBuilder("collect").add("procfs/live").build(diags, {"nosuch/x.a=1"}));
  EXPECT_THAT(diags.to_string(), HasSubstr("no component 'nosuch/x' in the pipeline"));
}

TEST(PipelineBuilder, ToYamlReadsBackToTheSameDocument) {
  Diagnostics diags;
  const json tricky = {{"number_text", "123"},
                       {"bool_text", "true"},
                       {"null_text", "null"},
                       {"empty", ""},
                       {"colon", "a: b"},
                       {"variable", "${input}"},
                       {"quote", "say \"hi\""},
                       {"path", "/tmp/x y/z"},
                       {"int", -42},
                       {"float", 0.1},
                       {"flag", false},
                       {"nothing", nullptr},
                       {"list", {"a", 1, 2.5}},
                       {"nested", {{"k", "v"}, {"n", {1, 2}}}}};
  auto built = PipelineBuilder("<test>")
                   .shared_source_thread()
                   .queue_capacity(64)
                   .idle_interval_ns(5'000'000)
                   .plugin_path("/opt/plugins")
                   .add("src/a", tricky)
                   .add("sink/b")
                   .link("src/a.out", "sink/b.in")
                   .build(diags);
  ASSERT_TRUE(built) << diags.to_string();
  const std::string yaml = to_yaml(*built);
  PipelineInputs no_variables;
  no_variables.variables["input"] = "EXPANDED";
  auto back = parse_pipeline_text(yaml, "back.yaml", no_variables, diags);
  ASSERT_TRUE(back) << diags.to_string() << yaml;
  EXPECT_FALSE(diags.has_errors()) << diags.to_string() << yaml;
  json expected = summary(*built);
  // ${...} is the one thing a pipeline file cannot hold literally: it is expanded when read back.
  expected["components"]["src/a"]["variable"] = "EXPANDED";
  EXPECT_EQ(summary(*back), expected) << yaml;
}

}  // namespace
}  // namespace cann_debug::host
