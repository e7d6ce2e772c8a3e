// The cann-debug binary with --plugin-path pointing at the fixture packages: exit codes, diagnostics,
// listings, JSON and DOT output.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cli_runner.hpp"
#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string good(const std::string& name) {
  return pipeline_data_dir() + "/good/" + name;
}
std::string bad(const std::string& name) {
  return pipeline_data_dir() + "/bad/" + name;
}

TEST(Cli, ValidateOfABadPipelineExits3AndPrintsEveryDiagnostic) {
  const auto r = run_cli_with_fixtures({"validate", bad("bad_several_problems.yaml"), "--output", "/tmp/x"});
  EXPECT_EQ(r.exit_code, 3) << r.err;
  const auto expected = read_lines(bad("bad_several_problems.expected"));
  ASSERT_GE(expected.size(), 9u);
  for (std::string line : expected) {
    // The list of valid types also names the real plugins of the build tree; compare up to it.
    if (auto cut = line.find(" (valid types:"); cut != std::string::npos) line.resize(cut);
    EXPECT_THAT(r.err, HasSubstr(line));
  }
  EXPECT_THAT(r.err, HasSubstr(std::to_string(expected.size()) + " error(s); nothing was run"));
}

TEST(Cli, ValidateOfAGoodPipelineExits0) {
  const auto r = run_cli_with_fixtures({"validate", good("linear.yaml"), "--output", "/tmp/x"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, HasSubstr("ok (3 components, 2 links)"));
}

TEST(Cli, ValidateNoProbeSkipsTheProbeStage) {
  EXPECT_EQ(run_cli_with_fixtures({"validate", bad("bad_probe.yaml")}).exit_code, 3);
  const auto r = run_cli_with_fixtures({"validate", "--no-probe", bad("bad_probe.yaml")});
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(Cli, PluginsListsTheFixtureComponents) {
  const auto r = run_cli_with_fixtures({"plugins"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  for (const char* type : {"counter_source", "ticker", "passthrough", "throw_on", "flush_buffer", "slow_sink",
                           "collect_sink", "tagger", "needs_chip"})
    EXPECT_THAT(r.out, HasSubstr(type));
  EXPECT_THAT(r.out, HasSubstr("no: no NPU found (fixture: never available)"));  // probe() is shown
}

TEST(Cli, PluginsJsonNamesThePackageOfEachComponent) {
  const auto r = run_cli_with_fixtures({"plugins", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::map<std::string, std::string> package_of;
  for (const auto& c : j.at("components")) package_of[c.at("type")] = c.at("package");
  EXPECT_EQ(package_of["counter_source"], "fixture_good");
  EXPECT_EQ(package_of["tagger"], "fixture_extra");
}

TEST(Cli, InspectJsonGivesOptionsWithDefaults) {
  const auto r = run_cli_with_fixtures({"inspect", "counter_source", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j.at("type"), "counter_source");
  EXPECT_EQ(j.at("kind"), "reader");
  EXPECT_EQ(j.at("package").at("name"), "fixture_good");
  std::map<std::string, nlohmann::json> options;
  for (const auto& o : j.at("options")) options[o.at("name")] = o;
  ASSERT_TRUE(options.count("count"));
  EXPECT_EQ(options["count"].at("default"), 10);
  EXPECT_EQ(options["count"].at("type"), "int");
  EXPECT_EQ(options["count"].at("min"), 0.0);
  EXPECT_EQ(options["format"].at("values"), (nlohmann::json{"json", "metric", "frame"}));
  EXPECT_EQ(j.at("outputs").size(), 3u);
}

TEST(Cli, InspectOfAnUnknownTypeExits4WithASuggestion) {
  const auto r = run_cli_with_fixtures({"inspect", "countr_source"});
  EXPECT_EQ(r.exit_code, 4);
  EXPECT_THAT(r.err, HasSubstr("did you mean 'counter_source'?"));
}

TEST(Cli, GraphDotPrintsADigraph) {
  const auto r = run_cli_with_fixtures({"graph", "--dot", good("linear.yaml"), "--output", "/tmp/x"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_THAT(r.out, StartsWith("digraph \"linear\" {"));
  EXPECT_THAT(r.out, HasSubstr(R"("counter_source/src" -> "passthrough/p")"));
  EXPECT_THAT(r.out, HasSubstr(R"("passthrough/p" -> "collect_sink/out")"));
  EXPECT_THAT(r.out, HasSubstr("json/1"));
}

TEST(Cli, HelpWorksForEveryVerb) {
  for (const char* verb : {"run", "validate", "plugins", "inspect", "graph"}) {
    const auto r = run_cli({verb, "--help"});
    EXPECT_EQ(r.exit_code, 0) << verb << ": " << r.err;
    EXPECT_THAT(r.out, HasSubstr(std::string("cann-debug ") + verb)) << verb;
  }
  const auto top = run_cli({"--help"});
  EXPECT_EQ(top.exit_code, 0);
  for (const char* verb : {"run", "validate", "plugins", "inspect", "graph"})
    EXPECT_THAT(top.out, HasSubstr(verb));
}

TEST(Cli, UnknownFlagsExit2) {
  EXPECT_EQ(run_cli({"--bogus", "plugins"}).exit_code, 2);
  EXPECT_EQ(run_cli_with_fixtures({"validate", "--bogus", good("linear.yaml")}).exit_code, 2);
  EXPECT_EQ(run_cli({}).exit_code, 2);  // a verb is required
}

TEST(Cli, RunOfAThrowingPipelineExits1NamingTheComponentAndLine) {
  TempDir out;
  const auto r = run_cli_with_fixtures({"run", good("throwing.yaml"), "--output", out.path().string()});
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_THAT(r.err,
              HasSubstr("throwing.yaml:5:3: error: throw_on/boom: process failed: boom at message 10"));
}

TEST(Cli, RunOfAGoodPipelineExits0AndWritesTheOutput) {
  TempDir out;
  const auto r = run_cli_with_fixtures({"run", good("linear.yaml"), "--output", out.path().string()});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_lines(out.file("out.jsonl")).size(), 6u);  // 5 messages and the flush marker
}

}  // namespace
}  // namespace cann_debug::itest
