// check_manifest's structural checks and manifest_to_json.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cann_debug/manifest.hpp"

namespace cann_debug {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

Manifest sound_extractor() {
  Manifest m;
  m.type = "op_latency.v2";
  m.kind = ComponentKind::kExtractor;
  m.version = "1.2.3";
  m.stability = Stability::kBeta;
  m.description = "turns events into features";
  m.inputs = {
      {.name = "events", .accepts = {"event.batch/1"}, .description = "trace events"},
      {.name = "records", .accepts = {"record.batch/1", "json/1"}, .required = false, .description = "logs"}};
  m.outputs = {{.name = "features", .produces = "feature.set/1", .description = "features"}};
  m.options = {{.name = "top_k",
                .type = OptionType::kInt,
                .description = "k",
                .default_value = 5,
                .min = 1,
                .max = 50},
               {.name = "window", .type = OptionType::kDuration, .description = "w", .default_value = "10s"},
               {.name = "mode",
                .type = OptionType::kEnum,
                .description = "m",
                .default_value = "a",
                .enum_values = {"a", "b"}}};
  m.concurrency = Concurrency::limited(4);
  m.sample_yaml = "op_latency.v2/main: {}";
  return m;
}

std::vector<std::string> problems_with(void (*edit)(Manifest&)) {
  Manifest m = sound_extractor();
  edit(m);
  return check_manifest(m);
}

TEST(CheckManifest, ASoundManifestHasNoProblems) {
  EXPECT_THAT(check_manifest(sound_extractor()), IsEmpty());
}

TEST(CheckManifest, BadTypeNames) {
  for (const char* type : {"OpLatency", "1abc", "op-latency", "", "op/latency"}) {
    Manifest m = sound_extractor();
    m.type = type;
    EXPECT_THAT(check_manifest(m), Contains(HasSubstr("must match [a-z][a-z0-9_.]*"))) << type;
  }
  Manifest m = sound_extractor();
  m.type = std::string(64, 'a');
  EXPECT_THAT(check_manifest(m), Contains(HasSubstr("at most 63 characters")));
}

TEST(CheckManifest, DuplicatePortsAndOptions) {
  EXPECT_THAT(problems_with([](Manifest& m) { m.outputs[0].name = "events"; }),
              ElementsAre("op_latency.v2: port name 'events' is used twice"));
  EXPECT_THAT(problems_with([](Manifest& m) { m.options.push_back(m.options[0]); }),
              ElementsAre("op_latency.v2: option 'top_k' is declared twice"));
}

TEST(CheckManifest, SourcesHaveNoInputsAndOthersNeedThem) {
  EXPECT_THAT(problems_with([](Manifest& m) { m.kind = ComponentKind::kSampler; }),
              ElementsAre("op_latency.v2: a sampler has no input ports"));
  EXPECT_THAT(problems_with([](Manifest& m) { m.inputs.clear(); }),
              ElementsAre(HasSubstr("needs at least one input port")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.outputs.clear(); }),
              ElementsAre(HasSubstr("needs at least one output port")));
  EXPECT_THAT(problems_with([](Manifest& m) {
                m.kind = ComponentKind::kSink;
                m.outputs.clear();
              }),
              IsEmpty());
}

TEST(CheckManifest, RequiredOptionWithADefault) {
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[0].required = true; }),
              ElementsAre("op_latency.v2: option 'top_k' is required but has a default"));
}

TEST(CheckManifest, OnErrorIsTheHostsOption) {
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[0].name = "on_error"; }),
              ElementsAre("op_latency.v2: option name 'on_error' is reserved for the host's error policy"));
}

TEST(ManifestStyle, DescriptionsAreOneShortLine) {
  Manifest m = sound_extractor();
  EXPECT_THAT(manifest_style_problems(m), IsEmpty());
  m.description = "First line.\nSecond line.";
  EXPECT_THAT(manifest_style_problems(m), ElementsAre(HasSubstr("description has several lines")));
  m.description = std::string(kMaxDescriptionChars + 1, 'x');
  EXPECT_THAT(manifest_style_problems(m),
              ElementsAre(HasSubstr("description has 121 characters (at most 120")));
}

TEST(CheckManifest, DefaultsMustConvertAndBeInRange) {
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[1].default_value = "soon"; }),
              ElementsAre(HasSubstr("default of option 'window': expected a duration")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[0].default_value = 500; }),
              ElementsAre("op_latency.v2: default of option 'top_k': 500 is above the maximum 50"));
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[2].default_value = "c"; }),
              ElementsAre("op_latency.v2: default of option 'mode': 'c' is not one of [a, b]"));
}

TEST(CheckManifest, OtherStructuralProblems) {
  EXPECT_THAT(problems_with([](Manifest& m) { m.description.clear(); }),
              ElementsAre(HasSubstr("description is empty")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.inputs[0].accepts.clear(); }),
              ElementsAre(HasSubstr("input port 'events' accepts no message type")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.outputs[0].produces = "features"; }),
              ElementsAre(HasSubstr("message type 'features' is not <name>/<major>")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[2].enum_values.clear(); }),
              Contains(HasSubstr("enum option 'mode' lists no values")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[0].description.clear(); }),
              ElementsAre(HasSubstr("option 'top_k' has no description")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[0].min = 100; }),
              Contains(HasSubstr("option 'top_k': min is above max")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.concurrency = Concurrency::limited(0); }),
              ElementsAre(HasSubstr("concurrency limit must be at least 1")));
  EXPECT_THAT(problems_with([](Manifest& m) { m.options[0].name = "Top-K"; }),
              ElementsAre(HasSubstr("option name 'Top-K' is not [a-z][a-z0-9_]*")));
}

TEST(CheckManifest, ReportsEveryProblem) {
  Manifest m = sound_extractor();
  m.type = "Bad";
  m.outputs[0].name = "events";
  m.options[0].required = true;
  EXPECT_EQ(check_manifest(m).size(), 3u);
}

TEST(ManifestLookup, PortAndOptionIndices) {
  const Manifest m = sound_extractor();
  EXPECT_EQ(m.input_index("records"), 1);
  EXPECT_EQ(m.input_index("features"), -1);
  EXPECT_EQ(m.output_index("features"), 0);
  ASSERT_NE(m.option("window"), nullptr);
  EXPECT_EQ(m.option("window")->type, OptionType::kDuration);
  EXPECT_EQ(m.option("nope"), nullptr);
}

TEST(ManifestToJson, HasEveryField) {
  const nlohmann::json j = manifest_to_json(sound_extractor());
  EXPECT_EQ(j["type"], "op_latency.v2");
  EXPECT_EQ(j["kind"], "extractor");
  EXPECT_EQ(j["version"], "1.2.3");
  EXPECT_EQ(j["stability"], "beta");
  EXPECT_EQ(j["description"], "turns events into features");
  EXPECT_EQ(j["concurrency"], "max:4");
  EXPECT_EQ(j["sample_yaml"], "op_latency.v2/main: {}");
  ASSERT_EQ(j["inputs"].size(), 2u);
  EXPECT_EQ(j["inputs"][1], (nlohmann::json{{"name", "records"},
                                            {"accepts", {"record.batch/1", "json/1"}},
                                            {"required", false},
                                            {"description", "logs"}}));
  EXPECT_EQ(j["outputs"][0]["produces"], "feature.set/1");
  ASSERT_EQ(j["options"].size(), 3u);
  EXPECT_EQ(j["options"][0], (nlohmann::json{{"name", "top_k"},
                                             {"type", "int"},
                                             {"required", false},
                                             {"default", 5},
                                             {"description", "k"},
                                             {"min", 1.0},
                                             {"max", 50.0}}));
  EXPECT_EQ(j["options"][1]["default"], "10s");  // as declared
  EXPECT_FALSE(j["options"][1].contains("min"));
  EXPECT_EQ(j["options"][2]["values"], (nlohmann::json{"a", "b"}));
}

TEST(ManifestToJson, ConcurrencyModes) {
  Manifest m = sound_extractor();
  m.concurrency = Concurrency::serial();
  EXPECT_EQ(manifest_to_json(m)["concurrency"], "serial");
  m.concurrency = Concurrency::reentrant();
  EXPECT_EQ(manifest_to_json(m)["concurrency"], "reentrant");
}

TEST(ManifestEnums, Names) {
  EXPECT_EQ(to_string(ComponentKind::kAdvisor), "advisor");
  EXPECT_EQ(to_string(Stability::kUnmaintained), "unmaintained");
  EXPECT_EQ(to_string(OptionType::kDoubleList), "list<double>");
  EXPECT_TRUE(is_source(ComponentKind::kReader));
  EXPECT_FALSE(is_source(ComponentKind::kSink));
}

}  // namespace
}  // namespace cann_debug
