// convert_option for every OptionType, the duration and size parsers, and check_option_bounds.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "cann_debug/options.hpp"

namespace cann_debug {
namespace {

using nlohmann::json;
using ::testing::HasSubstr;

OptionSpec spec(OptionType t) {
  return {.name = "x", .type = t, .description = "x"};
}

/// The converted value; fails the test (and returns null) when conversion fails.
json ok(OptionType t, const json& raw) {
  std::string err;
  auto v = convert_option(spec(t), raw, err);
  EXPECT_TRUE(v.has_value()) << to_string(t) << " " << raw.dump() << ": " << err;
  EXPECT_TRUE(!v || err.empty());
  return v.value_or(json());
}

/// The error message; fails the test when conversion succeeds.
std::string bad(OptionType t, const json& raw) {
  std::string err;
  auto v = convert_option(spec(t), raw, err);
  EXPECT_FALSE(v.has_value()) << to_string(t) << " " << raw.dump() << " converted to "
                              << v.value_or(json()).dump();
  EXPECT_FALSE(err.empty());
  return err;
}

TEST(ConvertOption, String) {
  EXPECT_EQ(ok(OptionType::kString, "abc"), "abc");
  EXPECT_EQ(ok(OptionType::kString, 5), "5");  // a YAML plain scalar that looked like a number
  EXPECT_EQ(ok(OptionType::kString, true), "true");
  EXPECT_THAT(bad(OptionType::kString, json::array({1})), HasSubstr("expected a string"));
}

TEST(ConvertOption, Int) {
  EXPECT_EQ(ok(OptionType::kInt, 42), 42);
  EXPECT_EQ(ok(OptionType::kInt, -7), -7);
  EXPECT_EQ(ok(OptionType::kInt, 1000.0), 1000);  // YAML 1e3
  EXPECT_EQ(ok(OptionType::kInt, " 12 "), 12);
  EXPECT_EQ(ok(OptionType::kInt, "0x10"), 16);
  EXPECT_TRUE(ok(OptionType::kInt, 42).is_number_integer());
  EXPECT_EQ(bad(OptionType::kInt, "many"), "expected an integer, got 'many'");
  bad(OptionType::kInt, 1.5);
  bad(OptionType::kInt, "12abc");
  bad(OptionType::kInt, true);
  bad(OptionType::kInt, nullptr);
}

TEST(ConvertOption, Double) {
  EXPECT_EQ(ok(OptionType::kDouble, 1), 1.0);
  EXPECT_TRUE(ok(OptionType::kDouble, 1).is_number_float());
  EXPECT_EQ(ok(OptionType::kDouble, 2.5), 2.5);
  EXPECT_EQ(ok(OptionType::kDouble, "2.5e3"), 2500.0);
  EXPECT_EQ(bad(OptionType::kDouble, "fast"), "expected a number, got 'fast'");
  bad(OptionType::kDouble, "nan");  // non-finite values are not option values
  bad(OptionType::kDouble, "inf");
  bad(OptionType::kDouble, "1.5x");
}

TEST(ConvertOption, Bool) {
  EXPECT_EQ(ok(OptionType::kBool, true), true);
  EXPECT_EQ(ok(OptionType::kBool, false), false);
  for (const char* s : {"true", "yes", "on"}) EXPECT_EQ(ok(OptionType::kBool, s), true) << s;
  for (const char* s : {"false", "no", "off"}) EXPECT_EQ(ok(OptionType::kBool, s), false) << s;
  EXPECT_EQ(bad(OptionType::kBool, 1), "expected true or false, got 1");
  bad(OptionType::kBool, "maybe");
}

TEST(ConvertOption, Duration) {
  EXPECT_EQ(ok(OptionType::kDuration, "10ms"), 10'000'000);
  EXPECT_EQ(ok(OptionType::kDuration, "2s"), 2'000'000'000);
  EXPECT_EQ(ok(OptionType::kDuration, "1.5m"), 90'000'000'000);
  EXPECT_EQ(ok(OptionType::kDuration, "250us"), 250'000);
  EXPECT_EQ(ok(OptionType::kDuration, "7ns"), 7);
  EXPECT_EQ(ok(OptionType::kDuration, "1h"), 3'600'000'000'000);
  EXPECT_EQ(ok(OptionType::kDuration, " 3 s "), 3'000'000'000);
  EXPECT_EQ(ok(OptionType::kDuration, 1500), 1500);  // an integer is nanoseconds
  EXPECT_EQ(bad(OptionType::kDuration, "fast"), "expected a duration like 10ms, 2s or 5m, got 'fast'");
  bad(OptionType::kDuration, "10 parsecs");
  bad(OptionType::kDuration, "ms");
  bad(OptionType::kDuration, true);
}

TEST(ConvertOption, Size) {
  EXPECT_EQ(ok(OptionType::kSize, "64KiB"), 65536);
  EXPECT_EQ(ok(OptionType::kSize, "2MB"), 2'000'000);
  EXPECT_EQ(ok(OptionType::kSize, "1.5KiB"), 1536);
  EXPECT_EQ(ok(OptionType::kSize, "1G"), 1'000'000'000);
  EXPECT_EQ(ok(OptionType::kSize, "3mib"), 3 * 1024 * 1024);  // units are case-insensitive
  EXPECT_EQ(ok(OptionType::kSize, "512"), 512);
  EXPECT_EQ(ok(OptionType::kSize, 4096), 4096);
  EXPECT_EQ(bad(OptionType::kSize, "lots"), "expected a size like 4096, 64KiB or 2MB, got 'lots'");
  bad(OptionType::kSize, -1);
  bad(OptionType::kSize, "-1KiB");
  bad(OptionType::kSize, "5 parsecs");
}

TEST(ConvertOption, Enum) {
  OptionSpec e{
      .name = "mode", .type = OptionType::kEnum, .description = "m", .enum_values = {"fast", "slow"}};
  std::string err;
  EXPECT_EQ(convert_option(e, "fast", err).value(), "fast");
  EXPECT_FALSE(convert_option(e, 3, err).has_value());
  EXPECT_EQ(err, "expected one of [fast, slow], got 3");
  // Membership is a bounds check, so it is reported with the value.
  EXPECT_EQ(check_option_bounds(e, "fast"), "");
  EXPECT_EQ(check_option_bounds(e, "medium"), "'medium' is not one of [fast, slow]");
}

TEST(ConvertOption, StringList) {
  EXPECT_EQ(ok(OptionType::kStringList, "one"), json::array({"one"}));  // a scalar is a list of one
  EXPECT_EQ(ok(OptionType::kStringList, json::array({"a", 1, true})), json::array({"a", "1", "true"}));
  EXPECT_EQ(ok(OptionType::kStringList, json::array()), json::array());
  EXPECT_THAT(bad(OptionType::kStringList, json::array({json::object()})),
              HasSubstr("expected a list of strings"));
  bad(OptionType::kStringList, 5);
}

TEST(ConvertOption, DoubleList) {
  EXPECT_EQ(ok(OptionType::kDoubleList, json::array({1, "2.5", 3.0})), json::array({1.0, 2.5, 3.0}));
  EXPECT_EQ(ok(OptionType::kDoubleList, 4), json::array({4.0}));
  EXPECT_EQ(bad(OptionType::kDoubleList, json::array({1, "x"})),
            "expected a list of numbers, got an element 'x'");
}

TEST(ConvertOption, Map) {
  const json m = {{"a", 1}, {"b", {{"c", "d"}}}};
  EXPECT_EQ(ok(OptionType::kMap, m), m);
  EXPECT_EQ(bad(OptionType::kMap, "a=1"), "expected a mapping, got 'a=1'");
  bad(OptionType::kMap, json::array({1}));
}

TEST(ParseDuration, RejectsUnknownUnitsAndOverflow) {
  EXPECT_EQ(parse_duration_ns("5min").value(), 300'000'000'000);
  EXPECT_EQ(parse_duration_ns("2").value(), 2'000'000'000);  // bare numbers in text are seconds
  EXPECT_FALSE(parse_duration_ns("").has_value());
  EXPECT_FALSE(parse_duration_ns("1d").has_value());
  EXPECT_FALSE(parse_duration_ns("99999999999999999999s").has_value());
}

TEST(ParseSize, RejectsUnknownUnitsAndOverflow) {
  EXPECT_EQ(parse_size_bytes("1GiB").value(), 1024LL * 1024 * 1024);
  EXPECT_EQ(parse_size_bytes("10b").value(), 10);
  EXPECT_FALSE(parse_size_bytes("1TB").has_value());
  EXPECT_FALSE(parse_size_bytes("99999999999999999999GB").has_value());
}

TEST(OptionBounds, InclusiveRangeForNumbersDurationsSizesAndLists) {
  OptionSpec n{.name = "n", .type = OptionType::kInt, .description = "n", .min = 1, .max = 10};
  EXPECT_EQ(check_option_bounds(n, 1), "");
  EXPECT_EQ(check_option_bounds(n, 10), "");
  EXPECT_EQ(check_option_bounds(n, 0), "0 is below the minimum 1");
  EXPECT_EQ(check_option_bounds(n, 11), "11 is above the maximum 10");

  OptionSpec d{.name = "d", .type = OptionType::kDuration, .description = "d", .min = 1e6};  // >= 1ms
  std::string err;
  EXPECT_EQ(check_option_bounds(d, *convert_option(d, "2ms", err)), "");
  EXPECT_THAT(check_option_bounds(d, *convert_option(d, "10us", err)), HasSubstr("below the minimum"));

  OptionSpec s{.name = "s", .type = OptionType::kSize, .description = "s", .max = 1024};
  EXPECT_THAT(check_option_bounds(s, *convert_option(s, "2KiB", err)), HasSubstr("above the maximum 1024"));

  OptionSpec l{.name = "l", .type = OptionType::kDoubleList, .description = "l", .min = 0, .max = 1};
  EXPECT_EQ(check_option_bounds(l, json::array({0.0, 0.5, 1.0})), "");
  EXPECT_EQ(check_option_bounds(l, json::array({0.5, 1.5})), "1.5 is above the maximum 1");
}

}  // namespace
}  // namespace cann_debug
