// Parsing a pipeline document: variables (${name}, ${name:-default}, the environment), undefined
// variables reported at their position, --set overrides, and YAML scalar typing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>

#include "pipeline_document.hpp"

namespace cann_debug::host {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

struct Parsed {
  std::optional<PipelineDocument> doc;
  Diagnostics diags;
  std::string text() const { return diags.to_string(); }
};

Parsed parse(const std::string& yaml, PipelineInputs inputs = {}) {
  Parsed p;
  p.doc = parse_pipeline_text(yaml, "p.yaml", inputs, p.diags);
  return p;
}

json option(const Parsed& p, const std::string& component, const std::string& key) {
  if (!p.doc) return "<no document>";
  const ComponentDecl* c = p.doc->component(component);
  if (!c) return "<no component>";
  const OptionDecl* o = c->option(key);
  return o ? o->value : json("<no option>");
}

TEST(ExpandVariables, NamesDefaultsAndEnvironment) {
  ::setenv("CDT_UNIT_ENV", "from-env", 1);
  ::unsetenv("CDT_UNIT_UNSET");
  std::vector<std::string> missing;
  const std::map<std::string, std::string> vars = {{"input", "/in"}, {"CDT_UNIT_ENV", "from-vars"}};
  EXPECT_EQ(expand_variables("${input}/a.json", vars, missing), "/in/a.json");
  EXPECT_EQ(expand_variables("${CDT_UNIT_ENV}", {}, missing), "from-env");
  EXPECT_EQ(expand_variables("${CDT_UNIT_ENV}", vars, missing),
            "from-vars");  // variables before the environment
  EXPECT_EQ(expand_variables("${CDT_UNIT_UNSET:-fallback}", {}, missing), "fallback");
  EXPECT_EQ(expand_variables("${CDT_UNIT_UNSET:-}", {}, missing), "");
  EXPECT_EQ(expand_variables("${input:-unused}", vars, missing), "/in");
  EXPECT_EQ(expand_variables("$input ${unclosed", vars, missing), "$input ${unclosed");  // left as written
  EXPECT_TRUE(missing.empty());
  EXPECT_EQ(expand_variables("a${x}b${y}c", {}, missing), "abc");
  EXPECT_EQ(missing, (std::vector<std::string>{"x", "y"}));
}

TEST(PipelineDocument, ExpandsVariablesInOptionsAndLinks) {
  ::setenv("CDT_UNIT_DIR", "/env-dir", 1);
  PipelineInputs inputs;
  inputs.variables = {{"input", "/data"}, {"src", "reader/a"}};
  const auto p = parse(R"(version: 1
components:
  reader/a:
    path: ${input}/trace.json
    cache: ${CDT_UNIT_DIR}/cache
    mode: ${CDT_UNIT_NOT_SET:-fast}
  sink/b: {}
links:
  - ${src}.out -> sink/b.in
)",
                       inputs);
  ASSERT_TRUE(p.doc) << p.text();
  EXPECT_FALSE(p.diags.has_errors()) << p.text();
  EXPECT_EQ(option(p, "reader/a", "path"), "/data/trace.json");
  EXPECT_EQ(option(p, "reader/a", "cache"), "/env-dir/cache");
  EXPECT_EQ(option(p, "reader/a", "mode"), "fast");
  ASSERT_EQ(p.doc->links.size(), 1u);
  EXPECT_EQ(p.doc->links[0].from.component, "reader/a");
  EXPECT_EQ(p.doc->links[0].from.port, "out");
  EXPECT_EQ(p.doc->links[0].to.component, "sink/b");
}

TEST(PipelineDocument, UndefinedVariableIsAnErrorAtItsPosition) {
  const auto p = parse(R"(version: 1
components:
  reader/a:
    path: ${input}/trace.json
    other: "${CDT_UNIT_NOPE}"
)");
  ASSERT_TRUE(p.doc);
  EXPECT_EQ(p.diags.error_count(), 2u);
  EXPECT_THAT(p.text(), HasSubstr("p.yaml:4:11: error: undefined variable '${input}' (pass --input DIR)"));
  EXPECT_THAT(p.text(), HasSubstr("p.yaml:5:12: error: undefined variable '${CDT_UNIT_NOPE}' (pass --var "
                                  "CDT_UNIT_NOPE=VALUE or set the environment variable)"));
}

TEST(PipelineDocument, UndefinedVariablesInPluginPathsDropTheEntry) {
  ::unsetenv("CDT_UNIT_PLUGINS");
  const auto p = parse(R"(version: 1
plugins: { paths: [ "${CDT_UNIT_PLUGINS}", "/abs/plugins", "rel/plugins" ] }
components:
  reader/a: {}
)");
  ASSERT_TRUE(p.doc);
  EXPECT_FALSE(p.diags.has_errors()) << p.text();
  EXPECT_EQ(p.doc->plugin_paths, (std::vector<std::string>{"/abs/plugins", "rel/plugins"}));
}

TEST(PipelineDocument, ScalarTyping) {
  const auto p = parse(R"(version: 1
components:
  reader/a:
    int: 10
    negative: -3
    quoted: "10"
    single: '10'
    float: 1.5
    exp: 1e3
    yes_bool: true
    word: yes
    nothing: ~
    empty:
    list: [1, "2", three]
    map: { a: 1 }
)");
  ASSERT_TRUE(p.doc) << p.text();
  EXPECT_EQ(option(p, "reader/a", "int"), 10);
  EXPECT_TRUE(option(p, "reader/a", "int").is_number_integer());
  EXPECT_EQ(option(p, "reader/a", "negative"), -3);
  EXPECT_EQ(option(p, "reader/a", "quoted"), "10");  // quoted scalars stay strings
  EXPECT_EQ(option(p, "reader/a", "single"), "10");
  EXPECT_EQ(option(p, "reader/a", "float"), 1.5);
  EXPECT_EQ(option(p, "reader/a", "exp"), 1000.0);
  EXPECT_EQ(option(p, "reader/a", "yes_bool"), true);
  EXPECT_EQ(option(p, "reader/a", "word"), "yes");  // YAML 1.2: only true/false are booleans
  EXPECT_TRUE(option(p, "reader/a", "nothing").is_null());
  EXPECT_TRUE(option(p, "reader/a", "empty").is_null());
  EXPECT_EQ(option(p, "reader/a", "list"), (json{1, "2", "three"}));
  EXPECT_EQ(option(p, "reader/a", "map"), (json{{"a", 1}}));
}

TEST(PipelineDocument, PositionsOfComponentsOptionsAndLinks) {
  const auto p = parse(R"(version: 1
components:
  reader/a:
    path: x
links:
  - reader/a.out -> sink/b.in
)");
  ASSERT_TRUE(p.doc);
  const ComponentDecl* c = p.doc->component("reader/a");
  ASSERT_NE(c, nullptr);
  EXPECT_EQ(c->type, "reader");
  EXPECT_EQ(c->name, "a");
  EXPECT_EQ(c->where.line, 3);
  EXPECT_EQ(c->where.column, 3);
  EXPECT_EQ(c->option("path")->key_where.line, 4);
  EXPECT_EQ(c->option("path")->key_where.column, 5);
  EXPECT_EQ(c->option("path")->value_where.column, 11);
  EXPECT_EQ(p.doc->links[0].where.line, 6);
  EXPECT_EQ(p.doc->links[0].where.column, 5);
}

TEST(PipelineDocument, SettingsAndMetadata) {
  const auto p = parse(R"(version: 1
name: demo
description: a demo
settings: { queue_capacity: 16, idle_interval: 5ms }
components:
  reader/a: {}
)");
  ASSERT_TRUE(p.doc);
  EXPECT_FALSE(p.diags.has_errors()) << p.text();
  EXPECT_EQ(p.doc->name, "demo");
  EXPECT_EQ(p.doc->description, "a demo");
  EXPECT_EQ(p.doc->queue_capacity, 16u);
  EXPECT_EQ(p.doc->idle_interval_ns, 5'000'000);
  EXPECT_FALSE(p.doc->shared_source_thread);  // own threads unless asked
}

TEST(PipelineDocument, SourceThreadsSetting) {
  const auto shared =
      parse("version: 1\nsettings: { source_threads: shared }\ncomponents:\n  reader/a: {}\n");
  ASSERT_TRUE(shared.doc);
  EXPECT_TRUE(shared.doc->shared_source_thread);
  const auto bad = parse("version: 1\nsettings:\n  source_threads: pooled\ncomponents:\n  reader/a: {}\n");
  EXPECT_TRUE(bad.diags.has_errors());
  EXPECT_NE(
      bad.text().find("3:19: error: settings.source_threads: expected 'own' or 'shared', found 'pooled'"),
      std::string::npos)
      << bad.text();
}

constexpr const char* kTwoComponents = R"(version: 1
components:
  reader/a: { path: original, depth: 2 }
  sink/b: {}
)";

TEST(SetOverrides, ReplaceAnExistingOptionAndAddANewOne) {
  PipelineInputs inputs;
  inputs.overrides = {"reader/a.path=/replaced", "reader/a.limit=64KiB", "sink/b.count=10",
                      "sink/b.label=\"10\"", "reader/a.tags=[x, y]"};
  const auto p = parse(kTwoComponents, inputs);
  ASSERT_TRUE(p.doc);
  EXPECT_FALSE(p.diags.has_errors()) << p.text();
  EXPECT_EQ(option(p, "reader/a", "path"), "/replaced");
  EXPECT_EQ(option(p, "reader/a", "depth"), 2);  // untouched
  EXPECT_EQ(option(p, "reader/a", "limit"), "64KiB");
  EXPECT_EQ(option(p, "sink/b", "count"), 10);  // typed like YAML
  EXPECT_EQ(option(p, "sink/b", "label"), "10");
  EXPECT_EQ(option(p, "reader/a", "tags"), (json{"x", "y"}));
  // An overridden value is reported at the --set, not at the YAML line it replaced.
  EXPECT_EQ(p.doc->component("reader/a")->option("path")->value_where.file, "--set reader/a.path=/replaced");
  EXPECT_EQ(p.doc->component("reader/a")->options.size(), 4u);  // no duplicate 'path'
}

TEST(SetOverrides, UnknownComponentAndMalformedOverridesAreErrors) {
  PipelineInputs inputs;
  inputs.overrides = {"reader/aa.path=x", "nonsense", "reader/a.path"};
  const auto p = parse(kTwoComponents, inputs);
  ASSERT_TRUE(p.doc);
  EXPECT_EQ(p.diags.error_count(), 3u) << p.text();
  EXPECT_THAT(p.text(),
              HasSubstr("--set reader/aa.path=x: error: no component 'reader/aa' in the pipeline (did you "
                        "mean 'reader/a'?)"));
  EXPECT_THAT(p.text(), HasSubstr("--set nonsense: error: expected --set type/name.option=value"));
  EXPECT_THAT(p.text(), HasSubstr("--set reader/a.path: error: expected --set type/name.option=value"));
}

TEST(PipelineDocument, SyntaxErrorGivesNoDocumentButAPosition) {
  const auto p = parse("version: 1\ncomponents: [\n");
  EXPECT_FALSE(p.doc);
  ASSERT_EQ(p.diags.error_count(), 1u);
  EXPECT_THAT(p.text(), HasSubstr("p.yaml:3:1: error: YAML syntax error"));
}

TEST(PipelineDocument, StructuralErrorsAreCollectedAndParsingGoesOn) {
  const auto p = parse(R"(version: 3
compnents: {}
components:
  reader/a: 5
  bad id: {}
links: nope
)");
  ASSERT_TRUE(p.doc);
  EXPECT_EQ(p.diags.error_count(), 5u) << p.text();
  EXPECT_THAT(p.text(), HasSubstr("p.yaml:1:10: error: unsupported pipeline version '3'"));
  EXPECT_THAT(p.text(),
              HasSubstr("p.yaml:2:1: error: unknown top-level key 'compnents' (did you mean 'components'?)"));
  EXPECT_THAT(p.text(), HasSubstr("p.yaml:5:3: error: component id 'bad id' must be 'type/name'"));
  EXPECT_THAT(p.text(), HasSubstr("p.yaml:6:8: error: 'links' must be a list"));
  EXPECT_THAT(
      p.text(),
      HasSubstr("p.yaml:4:13: error: reader/a: options must be a mapping (use {} for none), found a scalar"));
}

TEST(PipelineDocument, FileThatCannotBeReadIsOneError) {
  Diagnostics diags;
  EXPECT_FALSE(parse_pipeline_file("/nonexistent/pipeline.yaml", {}, diags));
  EXPECT_THAT(diags.to_string(), HasSubstr("/nonexistent/pipeline.yaml: error: cannot read the pipeline"));
}

}  // namespace
}  // namespace cann_debug::host
