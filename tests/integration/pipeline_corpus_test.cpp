// The corpus of bad pipelines in tests/data/pipelines/bad: each <name>.yaml has a sibling <name>.expected
// holding, one per line, the diagnostics validation must print ("file:line:col: error: message", as a
// substring of the output). Every expected line must appear, and there must be no other error, so the
// corpus also proves that all problems of a pipeline are reported at once and nothing is reported twice.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {
namespace {

namespace fs = std::filesystem;

std::string bad_dir() {
  return pipeline_data_dir() + "/bad";
}

std::vector<std::string> bad_pipelines() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(bad_dir(), ec))
    if (e.path().extension() == ".yaml") names.push_back(e.path().stem().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::vector<std::string> expected_lines(const std::string& name) {
  std::vector<std::string> out;
  for (auto& line : read_lines(bad_dir() + "/" + name + ".expected"))
    if (!line.empty() && line[0] != '#') out.push_back(line);
  return out;
}

/// What `cann-debug validate` would print for the file, with ${input}/${output} set.
host::Diagnostics validate_file(const std::string& path, const host::PluginRegistry& registry) {
  host::Diagnostics diags;
  host::PipelineInputs inputs;
  inputs.variables = {{"input", "/data/in"}, {"output", "/data/out"}};
  if (auto doc = host::parse_pipeline_file(path, inputs, diags)) host::plan_pipeline(*doc, registry, diags);
  return diags;
}

class BadPipeline : public ::testing::TestWithParam<std::string> {
 protected:
  static void SetUpTestSuite() { registry_ = good_registry().release(); }
  static void TearDownTestSuite() {
    delete registry_;
    registry_ = nullptr;
  }
  static host::PluginRegistry* registry_;
};
host::PluginRegistry* BadPipeline::registry_ = nullptr;

TEST_P(BadPipeline, ReportsExactlyTheExpectedDiagnostics) {
  const std::string name = GetParam();
  const auto expected = expected_lines(name);
  ASSERT_FALSE(expected.empty()) << name << ".expected is missing or empty";
  const host::Diagnostics diags = validate_file(bad_dir() + "/" + name + ".yaml", *registry_);
  const std::string out = diags.to_string();
  for (const auto& line : expected)
    EXPECT_NE(out.find(line), std::string::npos) << "missing: " << line << "\ngot:\n" << out;
  EXPECT_EQ(diags.error_count(), expected.size()) << "got:\n" << out;
}

INSTANTIATE_TEST_SUITE_P(Corpus, BadPipeline, ::testing::ValuesIn(bad_pipelines()),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(BadPipelineCorpus, HasAtLeastTwentyPipelinesEachWithExpectations) {
  const auto names = bad_pipelines();
  EXPECT_GE(names.size(), 20u);
  for (const auto& n : names) EXPECT_TRUE(fs::exists(bad_dir() + "/" + n + ".expected")) << n;
}

TEST(BadPipelineCorpus, SeveralProblemsAreAllReportedInOneRun) {
  auto registry = good_registry();
  const auto diags = validate_file(bad_dir() + "/bad_several_problems.yaml", *registry);
  // Problems from every validation stage: document, types, options, links and cycles.
  EXPECT_GE(diags.error_count(), 9u) << diags.to_string();
  const std::string out = diags.to_string();
  for (const char* part :
       {"unknown top-level key", "unknown component type", "unknown option", "expected an integer",
        "missing required option", "is not one of", "cannot link", "no input port", "cycle"})
    EXPECT_NE(out.find(part), std::string::npos) << part << "\n" << out;
}

}  // namespace
}  // namespace cann_debug::itest
