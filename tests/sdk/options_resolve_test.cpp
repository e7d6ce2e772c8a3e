// resolve_config (defaults, unknown options with a did-you-mean, missing required, wrong types, every issue
// at once), closest_match, and the Config accessors.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cann_debug/options.hpp"

namespace cann_debug {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

const std::vector<OptionSpec>& schema() {
  static const std::vector<OptionSpec> s = {
      {.name = "path", .type = OptionType::kString, .description = "file to read", .required = true},
      {.name = "interval",
       .type = OptionType::kDuration,
       .description = "poll interval",
       .default_value = "100ms"},
      {.name = "limit", .type = OptionType::kSize, .description = "max bytes", .default_value = "1MiB"},
      {.name = "count",
       .type = OptionType::kInt,
       .description = "n",
       .default_value = 3,
       .min = 1,
       .max = 100},
      {.name = "mode",
       .type = OptionType::kEnum,
       .description = "m",
       .default_value = "fast",
       .enum_values = {"fast", "slow"}},
      {.name = "tags", .type = OptionType::kStringList, .description = "t"},
      {.name = "verbose", .type = OptionType::kBool, .description = "v", .default_value = false},
  };
  return s;
}

TEST(ResolveConfig, FillsDefaultsInCanonicalForm) {
  std::vector<OptionIssue> issues;
  Config c = resolve_config(schema(), {{"path", "/x"}}, issues);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(c.str("path"), "/x");
  EXPECT_EQ(c.duration_ns("interval"), 100'000'000);
  EXPECT_EQ(c.bytes("limit"), 1024 * 1024);
  EXPECT_EQ(c.integer("count"), 3);
  EXPECT_EQ(c.str("mode"), "fast");
  EXPECT_FALSE(c.boolean("verbose"));
  EXPECT_FALSE(c.has("tags"));  // optional without default: present as null
  EXPECT_TRUE(c.json().contains("tags"));
  EXPECT_TRUE(c.has("path"));
}

TEST(ResolveConfig, ConvertsGivenValues) {
  std::vector<OptionIssue> issues;
  Config c = resolve_config(
      schema(), {{"path", "/x"}, {"interval", "2s"}, {"tags", "a"}, {"verbose", "yes"}, {"count", "7"}},
      issues);
  EXPECT_TRUE(issues.empty());
  EXPECT_EQ(c.duration_ns("interval"), 2'000'000'000);
  EXPECT_EQ(c.strings("tags"), std::vector<std::string>{"a"});
  EXPECT_TRUE(c.boolean("verbose"));
  EXPECT_EQ(c.integer("count"), 7);
}

TEST(ResolveConfig, NullRawMeansNoOptions) {
  std::vector<OptionIssue> issues;
  resolve_config(schema(), nullptr, issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, OptionIssue::Kind::kMissing);
  EXPECT_EQ(issues[0].key, "path");
  EXPECT_EQ(issues[0].message, "missing required option 'path' (string: file to read)");
}

TEST(ResolveConfig, UnknownOptionSuggestsTheClosestName) {
  std::vector<OptionIssue> issues;
  resolve_config(schema(), {{"path", "/x"}, {"intervall", "1s"}}, issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].kind, OptionIssue::Kind::kUnknown);
  EXPECT_EQ(issues[0].key, "intervall");
  EXPECT_EQ(issues[0].message, "unknown option 'intervall' (did you mean 'interval'?)");
}

TEST(ResolveConfig, UnknownOptionWithoutACloseNameListsTheValidOnes) {
  std::vector<OptionIssue> issues;
  resolve_config(schema(), {{"path", "/x"}, {"zzzzzzzz", 1}}, issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].message,
            "unknown option 'zzzzzzzz' (valid options: path, interval, limit, count, mode, tags, verbose)");
  issues.clear();
  resolve_config({}, {{"x", 1}}, issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].message, "unknown option 'x' (this component takes no options)");
}

TEST(ResolveConfig, WrongTypeAndOutOfRange) {
  std::vector<OptionIssue> issues;
  resolve_config(schema(), {{"path", "/x"}, {"interval", "soon"}, {"count", 500}, {"mode", "medium"}},
                 issues);
  ASSERT_EQ(issues.size(), 3u);
  EXPECT_EQ(issues[0].kind, OptionIssue::Kind::kRange);  // issues follow the raw keys' (sorted) order
  EXPECT_EQ(issues[0].message, "option 'count': 500 is above the maximum 100");
  EXPECT_EQ(issues[1].kind, OptionIssue::Kind::kType);
  EXPECT_EQ(issues[1].message, "option 'interval': expected a duration like 10ms, 2s or 5m, got 'soon'");
  EXPECT_EQ(issues[2].kind, OptionIssue::Kind::kRange);
  EXPECT_EQ(issues[2].message, "option 'mode': 'medium' is not one of [fast, slow]");
}

TEST(ResolveConfig, InvalidGivenValueIsNotReplacedByItsDefault) {
  std::vector<OptionIssue> issues;
  Config c = resolve_config(schema(), {{"path", "/x"}, {"count", 0}}, issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_FALSE(c.json().contains("count"));
}

TEST(ResolveConfig, ReportsEveryIssueAtOnce) {
  std::vector<OptionIssue> issues;
  resolve_config(schema(), {{"pth", "/x"}, {"count", "many"}, {"limit", "-5"}, {"verbose", 3}}, issues);
  std::vector<std::string> keys;
  for (const auto& i : issues) keys.push_back(i.key);
  EXPECT_THAT(keys, ::testing::UnorderedElementsAre("pth", "count", "limit", "verbose", "path"));
  EXPECT_EQ(issues.back().kind, OptionIssue::Kind::kMissing);  // missing ones come after the given ones
}

TEST(ResolveConfig, NonMappingRawIsOneIssueOfTheWholeMapping) {
  std::vector<OptionIssue> issues;
  resolve_config(schema(), json::array({1, 2}), issues);
  ASSERT_EQ(issues.size(), 1u);
  EXPECT_EQ(issues[0].key, "");
  EXPECT_EQ(issues[0].kind, OptionIssue::Kind::kType);
  EXPECT_THAT(issues[0].message, HasSubstr("must be a mapping"));
}

TEST(ClosestMatch, PicksTheNearestWithinASmallDistance) {
  const std::vector<std::string> names = {"path", "port", "format", "interval"};
  EXPECT_EQ(closest_match("pth", names), "path");
  EXPECT_EQ(closest_match("path", names), "path");
  EXPECT_EQ(closest_match("formt", names), "format");
  EXPECT_EQ(closest_match("intreval", names), "interval");  // a transposition is two edits
  EXPECT_EQ(closest_match("Path", names), "path");
  EXPECT_EQ(closest_match("zzzzzz", names), "");
  EXPECT_EQ(closest_match("anything", {}), "");
}

TEST(ClosestMatch, FirstCandidateWinsATie) {
  EXPECT_EQ(closest_match("pat", {"path", "part"}), "path");
  EXPECT_EQ(closest_match("pat", {"part", "path"}), "part");
}

TEST(Config, AccessorsThrowOnAbsentKeysAndWrongTypes) {
  Config c(json{{"n", 5}, {"s", "x"}, {"l", json::array({1.0, 2.0})}});
  EXPECT_EQ(c.integer("n"), 5);
  EXPECT_EQ(c.number("n"), 5.0);
  EXPECT_EQ(c.numbers("l"), (std::vector<double>{1.0, 2.0}));
  EXPECT_THROW(c.str("missing"), std::out_of_range);
  EXPECT_THROW(c.integer("s"), nlohmann::json::type_error);
}

}  // namespace
}  // namespace cann_debug
