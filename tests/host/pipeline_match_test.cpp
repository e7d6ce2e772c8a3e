// A pipeline's `match:` rules (parsed with positions, evaluated against a run's folder) and `include:`
// (components and links of another file, read with the includer's variables and the entry's vars).
// Rules naming a reader are exercised with the real readers in tests/e2e (diagnose routing).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "pipeline_match.hpp"

namespace cann_debug::host {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class Folder {
 public:
  explicit Folder(const std::string& name) : path_(fs::path(::testing::TempDir()) / ("match_" + name)) {
    fs::remove_all(path_);
    fs::create_directories(path_);
  }
  ~Folder() { fs::remove_all(path_); }
  void write(const std::string& relative, const std::string& text) const {
    fs::create_directories((path_ / relative).parent_path());
    std::ofstream(path_ / relative) << text;
  }
  std::string path() const { return path_.string(); }

 private:
  fs::path path_;
};

std::vector<MatchRule> rules_of(const std::string& match_yaml, Diagnostics& diags) {
  auto doc = parse_pipeline_text("version: 1\ncomponents: {}\n" + match_yaml, "p.yaml", {}, diags);
  return doc ? doc->match : std::vector<MatchRule>{};
}

TEST(MatchRules, FieldsOfTheFirstRecordAndFileCounts) {
  Folder run("fields");
  run.write("metrics.jsonl", "\n{\"step\": 0, \"rank\": 1, \"loss\": 2.0}\n{\"step\": 1}\n");
  run.write("sub/config.json", "{\"scenario\": \"distributed\", \"world_size\": 4}");
  PluginRegistry no_readers;
  const RunFolder folder(no_readers, run.path());
  Diagnostics diags;
  const auto rules = rules_of(R"(match:
  - file: metrics.jsonl
    fields: [rank]
    says: "{file} has a rank per step"
  - file: metrics.jsonl
    fields: [request_id, latency_ms]
  - file: config.json
    equals: { scenario: distributed, world_size: 4 }
  - file: config.json
    equals: { scenario: training }
  - file: [metrics.jsonl, config.json]
    at_least: 2
    says: "{count} files"
  - file: [metrics.jsonl, config.json]
    at_least: 3
)",
                              diags);
  ASSERT_FALSE(diags.has_errors()) << diags.to_string();
  ASSERT_EQ(rules.size(), 6u);
  EXPECT_EQ(rule_holds(rules[0], folder), "metrics.jsonl has a rank per step");
  EXPECT_EQ(rule_holds(rules[1], folder), std::nullopt);
  EXPECT_EQ(rule_holds(rules[2], folder), "config.json has {\"scenario\":\"distributed\",\"world_size\":4}");
  EXPECT_EQ(rule_holds(rules[3], folder), std::nullopt);
  EXPECT_EQ(rule_holds(rules[4], folder), "2 files");
  EXPECT_EQ(rule_holds(rules[5], folder), std::nullopt);
  EXPECT_EQ(rules[0].priority, 50);  // the default
  EXPECT_EQ(rules[0].where.line, 4);
}

TEST(MatchRules, ContainsLooksIntoTheFilesPlainAndGzipAcrossChunkBoundaries) {
  Folder run("contains");
  // "Optimizer.step" straddles the 1 MiB read chunk of the search.
  const std::string head = "{\"traceEvents\": [";
  std::string big((1u << 20) - head.size(), ' ');
  big.replace(big.size() - 5, 5, "Optim");
  run.write("train.trace.json", head + big + "izer.step#SGD.step\"]}");
  run.write("serve.trace.json", "{\"traceEvents\": [{\"name\": \"aten::mm\"}]}");
  PluginRegistry no_readers;
  Diagnostics diags;
  const auto rules = rules_of(R"(match:
  - file: train.trace.json
    contains: ["Optimizer.step", "autograd::engine"]
  - file: serve.trace.json
    contains: Optimizer.step
  - file: [train.trace.json, serve.trace.json]
    contains: aten::mm
    says: "{count} {file}"
)",
                              diags);
  ASSERT_FALSE(diags.has_errors()) << diags.to_string();
  ASSERT_EQ(rules.size(), 3u);
  const RunFolder folder(no_readers, run.path());
  EXPECT_EQ(rule_holds(rules[0], folder),
            "train.trace.json holding \"Optimizer.step\" or \"autograd::engine\"");
  EXPECT_EQ(rule_holds(rules[1], folder), std::nullopt);
  EXPECT_EQ(rule_holds(rules[2], folder), "1 serve.trace.json");

  // The same text gzip-compressed is searched decompressed.
  Folder gz("contains_gz");
  const std::string plain = (fs::path(run.path()) / "train.trace.json").string();
  ASSERT_EQ(std::system(("gzip -c " + plain + " > " + gz.path() + "/train.trace.json").c_str()), 0);
  EXPECT_TRUE(rule_holds(rules[0], RunFolder(no_readers, gz.path())).has_value());
}

TEST(MatchRules, ProblemsAreReportedAtTheirPosition) {
  Diagnostics diags;
  const auto rules = rules_of(R"(match:
  - file: a.json
    feilds: [x]
  - fields: [x]
  - reader: r
    file: b.json
  - file: c.json
    at_least: 0
  - file: ok.json
    priority: 7
)",
                              diags);
  const std::string text = diags.to_string();
  EXPECT_THAT(text, HasSubstr("p.yaml:5:5: error: match: unknown key 'feilds' (did you mean 'fields'?)"));
  EXPECT_THAT(text, HasSubstr("p.yaml:6:5: error: match: a rule names either a 'reader' or a 'file'"));
  EXPECT_THAT(text, HasSubstr("p.yaml:7:5: error: match: a rule names either a 'reader' or a 'file'"));
  EXPECT_THAT(text, HasSubstr("p.yaml:10:15: error: match: 'at_least' is an integer >= 1, found 0"));
  ASSERT_EQ(rules.size(), 1u);  // only the good one is kept
  EXPECT_EQ(rules[0].priority, 7);
}

TEST(Include, BringsComponentsAndLinksReadWithTheIncludersVariablesAndItsVars) {
  Folder dir("include");
  dir.write("parts/tail.yaml", R"(components:
  ${kind}_sink/out:
    path: "${output}/${kind}.jsonl"
links:
  - ${from}.records -> ${kind}_sink/out.in
)");
  dir.write("main.yaml", R"(version: 1
components:
  jsonl/steps: { path: "${input}/m.jsonl" }
include:
  - path: parts/tail.yaml
    vars: { kind: json, from: jsonl/steps }
)");
  PipelineInputs inputs;
  inputs.variables = {{"input", "/in"}, {"output", "/out"}};
  inputs.overrides = {"json_sink/out.path=/elsewhere.jsonl"};
  Diagnostics diags;
  auto doc = parse_pipeline_file(dir.path() + "/main.yaml", inputs, diags);
  ASSERT_TRUE(doc);
  ASSERT_FALSE(diags.has_errors()) << diags.to_string();
  ASSERT_EQ(doc->components.size(), 2u);
  const ComponentDecl* sink = doc->component("json_sink/out");
  ASSERT_NE(sink, nullptr);
  EXPECT_EQ(sink->type, "json_sink");
  EXPECT_EQ(sink->option("path")->value, "/elsewhere.jsonl");   // overrides apply after includes
  EXPECT_THAT(sink->where.file, HasSubstr("parts/tail.yaml"));  // positions name the included file
  EXPECT_EQ(sink->where.line, 2);
  ASSERT_EQ(doc->links.size(), 1u);
  EXPECT_EQ(doc->links[0].from.component, "jsonl/steps");
  EXPECT_EQ(doc->links[0].to.component, "json_sink/out");
}

TEST(Include, DuplicatesCyclesAndForeignKeysAreErrors) {
  Folder dir("include_bad");
  dir.write("a.yaml", "version: 1\ncomponents:\n  x/one: {}\ninclude: [b.yaml]\n");
  dir.write("b.yaml", "settings: { queue_capacity: 4 }\ncomponents:\n  x/one: {}\ninclude: [a.yaml]\n");
  Diagnostics diags;
  auto doc = parse_pipeline_file(dir.path() + "/a.yaml", {}, diags);
  ASSERT_TRUE(doc);
  const std::string text = diags.to_string();
  EXPECT_THAT(text, HasSubstr("'settings' cannot be set in an included file"));
  EXPECT_THAT(text, HasSubstr("component 'x/one' is declared twice (first at"));
  EXPECT_THAT(text, HasSubstr("makes a cycle"));
  EXPECT_THAT(text, HasSubstr("b.yaml:1:1"));
}

}  // namespace
}  // namespace cann_debug::host
