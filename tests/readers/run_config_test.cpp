// The run_config reader (package json_file) and the typed lookups of run_config/1.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "cann_debug/messages.hpp"
#include "cann_debug/testing.hpp"
#include "plugin_test_support.hpp"
#include "run_config.hpp"

namespace cann_debug::plugins {
namespace {

using test::TempDir;
using test::write_file;
using testing::Harness;
using ::testing::HasSubstr;

std::string run(Harness& h) {
  try {
    h.run_source();
  } catch (const std::runtime_error& e) {
    return e.what();
  }
  return "";
}

TEST(RunConfigReader, EmitsTheDocumentOnceAsRunConfig) {
  TempDir dir;
  const auto path = dir / "config.json";
  write_file(path,
             R"({"lr": 0.1, "batch_size": 32, "optimizer": {"name": "adam", "lr": 0.001}, "shuffle": true})");
  Harness h(run_config_factory(), {{"path", path.string()}});
  EXPECT_EQ(run(h), "");
  const auto out = h.outputs_of<RunConfiguration>(0);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].source_path, path.string());
  EXPECT_EQ(out[0].number("lr"), 0.1);
  EXPECT_EQ(out[0].integer("batch_size"), 32);
  EXPECT_EQ(out[0].number("optimizer.lr"), 0.001);
  EXPECT_EQ(out[0].text("optimizer.name"), "adam");
  EXPECT_EQ(out[0].flag("shuffle"), true);
}

TEST(RunConfigReader, ANonObjectOrInvalidDocumentNamesTheFile) {
  TempDir dir;
  const auto list = dir / "list.json";
  write_file(list, "[1, 2]");
  Harness a(run_config_factory(), {{"path", list.string()}});
  EXPECT_EQ(run(a), list.string() + ": expected a JSON object with the run's settings");
  EXPECT_TRUE(a.outputs_of<RunConfiguration>(0).empty());

  const auto bad = dir / "bad.json";
  write_file(bad, "{\"lr\": 0.1,\n \"x\": }");
  Harness b(run_config_factory(), {{"path", bad.string()}});
  EXPECT_THAT(run(b), HasSubstr(bad.string() + ":2:"));
}

TEST(RunConfigReader, AMissingOptionalFileEmitsNothing) {
  Harness h(run_config_factory(), {{"path", "/nonexistent/config.json"}, {"optional", true}});
  EXPECT_EQ(run(h), "");
  EXPECT_TRUE(h.out.emitted.empty());
  Harness required(run_config_factory(), {{"path", "/nonexistent/config.json"}});
  EXPECT_THAT(run(required), HasSubstr("/nonexistent/config.json"));
}

TEST(RunConfiguration, LookupsAnswerNothingForMissingOrIllTypedKeys) {
  const RunConfiguration c{"c.json",
                           {{"lr", "fast"}, {"steps", 2.5}, {"epochs", 3.0}, {"a.b", 1}, {"a", {{"b", 2}}}}};
  EXPECT_FALSE(c.number("lr").has_value());      // a string is not a number
  EXPECT_FALSE(c.integer("steps").has_value());  // 2.5 has a fraction
  EXPECT_EQ(c.integer("epochs"), 3);             // 3.0 does not
  EXPECT_FALSE(c.number("missing.key").has_value());
  EXPECT_FALSE(c.text("lr.x").has_value());  // no object below a string
  EXPECT_EQ(c.integer("a.b"), 1);            // a flat dotted key wins over the nested path
}

}  // namespace
}  // namespace cann_debug::plugins
