// The console shows the best suggestion of every cause answered before a second one of any cause.
#include <gtest/gtest.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "suggestion_choice.hpp"

namespace cann_debug::cli {
namespace {

using nlohmann::json;

json suggestions(std::initializer_list<const char*> causes) {
  json out = json::array();
  for (const char* c : causes) out.push_back({{"root_cause", c}, {"title", fmt::format("t{}", out.size())}});
  return out;
}

TEST(SuggestionChoice, EveryCauseGetsItsBestSuggestionFirst) {
  // lr_too_high 0.61 with three suggestions, batch_too_small 0.39 with two.
  const json s =
      suggestions({"lr_too_high", "lr_too_high", "lr_too_high", "batch_too_small", "batch_too_small"});
  EXPECT_EQ(suggestions_to_show(s, 3), (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_EQ(suggestions_to_show(s, 2), (std::vector<std::size_t>{0, 3}));
  EXPECT_EQ(suggestions_to_show(s, 10), (std::vector<std::size_t>{0, 1, 2, 3, 4}));
}

TEST(SuggestionChoice, AFixThatAnswersTwoCausesIsShownOnce) {
  json s = suggestions({"small_packets", "small_packets", "small_bucket_size", "small_bucket_size"});
  s[0]["title"] = "Raise DDP's bucket_cap_mb to 25";
  s[1]["title"] = "Coalesce small tensors";
  s[2]["title"] = "Raise DDP's bucket_cap_mb to 25";
  s[3]["title"] = "Overlap the allreduce";
  EXPECT_EQ(suggestions_to_show(s, 3), (std::vector<std::size_t>{0, 1, 3}));
}

TEST(SuggestionChoice, OneCauseKeepsItsOrderAndMoreCausesThanRoomKeepTheLikeliest) {
  EXPECT_EQ(suggestions_to_show(suggestions({"a", "a", "a", "a"}), 3), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_EQ(suggestions_to_show(suggestions({"a", "b", "c", "d"}), 3), (std::vector<std::size_t>{0, 1, 2}));
  EXPECT_TRUE(suggestions_to_show(json::array(), 3).empty());
  EXPECT_TRUE(suggestions_to_show(json(), 3).empty());
}

}  // namespace
}  // namespace cann_debug::cli
