// JSON graphs: the documented schema, keyed and positional rows, discretization specs, round trip, and
// errors that name the JSON pointer.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "bayes_test_support.hpp"
#include "cann_debug/causal_graph/graph_loader.hpp"
#include "cann_debug/causal_graph/json_graph.hpp"
#include "core/errors.hpp"

namespace cann_debug::bayes {
namespace {

TEST(bayes_json, MiniTrainingGraph) {
  const Network net = load_graph(test::data_file("mini_training.json"));
  ASSERT_EQ(net.size(), 6u);
  EXPECT_EQ(net.name, "mini_training");
  const Variable& spike = net.variables[static_cast<std::size_t>(net.find("loss_spike"))];
  EXPECT_EQ(spike.parents, (std::vector<int>{net.find("grad_explosion"), net.find("bad_data")}));
  EXPECT_EQ(spike.cpt, (std::vector<double>{0.95, 0.05, 0.4, 0.6, 0.1, 0.9, 0.05, 0.95}));
  EXPECT_EQ(spike.description, "loss jumps far above its recent median");
  ASSERT_TRUE(spike.discretization.has_value());
  EXPECT_EQ(spike.discretization->feature, "loss.robust_z");
  EXPECT_EQ(spike.discretization->thresholds, std::vector<double>{3.0});
  EXPECT_EQ(spike.discretization->bin_states, (std::vector<int>{0, 1}));
  EXPECT_EQ(spike.discretization->soft_width, 0.5);
  EXPECT_EQ(spike.discretization->nonfinite_state, 1);
  const Variable& clip = net.variables[static_cast<std::size_t>(net.find("grad_clip_hits"))];
  EXPECT_EQ(clip.discretization->labels, (std::map<std::string, std::string>{{"rank", "0"}}));
}

TEST(bayes_json, RoundTrip) {
  const Network net = load_graph(test::data_file("mini_training.json"));
  const nlohmann::json doc = to_json_graph(net);
  const Network back = parse_json_graph(doc.dump(), "round-trip.json");
  ASSERT_EQ(back.size(), net.size());
  for (std::size_t v = 0; v < net.size(); ++v) {
    EXPECT_EQ(back.variables[v].name, net.variables[v].name);
    EXPECT_EQ(back.variables[v].parents, net.variables[v].parents);
    EXPECT_EQ(back.variables[v].cpt, net.variables[v].cpt);
    EXPECT_EQ(back.variables[v].discretization.has_value(), net.variables[v].discretization.has_value());
  }
  EXPECT_EQ(to_json_graph(back), doc);
}

TEST(bayes_json, LearnFalseMarksATableKeptAsWritten) {
  const Network net = parse_json_graph(R"({"name": "g", "variables": [
      {"name": "cause", "states": ["ok", "bad"], "cpt": [0.5, 0.5]},
      {"name": "config_says", "states": ["no", "yes"], "parents": ["cause"], "learn": false,
       "cpt": [[0.9, 0.1], [0.2, 0.8]]}]})",
                                       "g.json");
  EXPECT_TRUE(net.variables[0].learn);
  EXPECT_FALSE(net.variables[1].learn);
  const nlohmann::json doc = to_json_graph(net);
  EXPECT_FALSE(doc["variables"][0].contains("learn"));
  EXPECT_EQ(doc["variables"][1]["learn"], false);
  EXPECT_FALSE(parse_json_graph(doc.dump(), "back.json").variables[1].learn);
}

TEST(bayes_json, UnseenKindsNameTheirRowAndRoundTrip) {
  const Network net = parse_json_graph(R"({"name": "g", "variables": [
      {"name": "cause", "states": ["ok", "bad"], "cpt": [0.5, 0.5]},
      {"name": "other", "states": ["x", "y"], "cpt": [0.5, 0.5]},
      {"name": "symptom", "states": ["no", "yes"], "parents": ["cause", "other"],
       "cpt": [[0.9, 0.1], [0.9, 0.1], [0.2, 0.8], [0.2, 0.8]],
       "unseen": [{"given": {"cause": "bad", "other": "y"}, "share": 0.25, "p": [0.9, 0.1]}]}]})",
                                       "g.json");
  const auto& unseen = net.variables[2].unseen;
  ASSERT_EQ(unseen.size(), 1u);
  ASSERT_EQ(unseen.count(3), 1u);  // (bad, y): the last row, the last parent varying fastest
  EXPECT_EQ(unseen.at(3).share, 0.25);
  EXPECT_EQ(unseen.at(3).p, (std::vector<double>{0.9, 0.1}));
  const nlohmann::json doc = to_json_graph(net);
  EXPECT_EQ(doc["variables"][2]["unseen"][0]["given"], nlohmann::json::array({"bad", "y"}));
  EXPECT_FALSE(doc["variables"][0].contains("unseen"));
  const Network back = parse_json_graph(doc.dump(), "back.json");
  EXPECT_EQ(back.variables[2].unseen.at(3).p, unseen.at(3).p);
  EXPECT_EQ(to_json_graph(back), doc);
}

TEST(bayes_json, AKindReadOffTheLabelMapsEveryLabelStateAndRoundTrips) {
  const Network net = parse_json_graph(R"({"name": "g", "variables": [
      {"name": "cause", "states": ["ok", "sorted", "sharded"], "cpt": [0.4, 0.3, 0.3]},
      {"name": "kind", "states": ["fresh", "repeating", "never"], "learn": false, "parents": ["cause"],
       "cpt": [[1, 0, 0], [0, 1, 0], [0, 0.5, 0.5]],
       "from_label": {"variable": "cause", "states": {"sorted": "repeating", "sharded": "repeating"},
                      "otherwise": "fresh"}}]})",
                                       "g.json");
  ASSERT_TRUE(net.variables[1].from_label.has_value());
  EXPECT_EQ(net.variables[1].from_label->label, 0);
  EXPECT_EQ(net.variables[1].from_label->state_of, (std::vector<int>{0, 1, 1}));
  EXPECT_FALSE(net.variables[0].from_label.has_value());
  const nlohmann::json doc = to_json_graph(net);
  // The most common kind is written as `otherwise`, the others by label state.
  EXPECT_EQ(doc["variables"][1]["from_label"]["otherwise"], "repeating");
  EXPECT_EQ(doc["variables"][1]["from_label"]["states"], nlohmann::json({{"ok", "fresh"}}));
  const Network back = parse_json_graph(doc.dump(), "back.json");
  EXPECT_EQ(back.variables[1].from_label->state_of, net.variables[1].from_label->state_of);
  EXPECT_EQ(to_json_graph(back), doc);
}

TEST(bayes_json, StatesThatLearnLikeAnotherRoundTrip) {
  const Network net = parse_json_graph(R"({"name": "g", "variables": [
      {"name": "cause", "states": ["ok", "slow", "hot"], "cpt": [0.4, 0.3, 0.3],
       "learn_like": {"slow": "ok", "hot": "ok"}}]})",
                                       "g.json");
  EXPECT_EQ(net.variables[0].learn_like, (std::vector<std::pair<int, int>>{{1, 0}, {2, 0}}));
  const nlohmann::json doc = to_json_graph(net);
  EXPECT_EQ(doc["variables"][0]["learn_like"], nlohmann::json({{"slow", "ok"}, {"hot", "ok"}}));
  EXPECT_EQ(to_json_graph(parse_json_graph(doc.dump(), "back.json")), doc);
}

TEST(bayes_json, BifConvertsToJson) {
  if (!test::have_bn()) GTEST_SKIP() << "no shared BIF corpus";
  const Network bif = load_graph(test::bif("asia"));
  const Network json = parse_json_graph(to_json_graph(bif).dump(), "asia.json");
  for (std::size_t v = 0; v < bif.size(); ++v) EXPECT_EQ(json.variables[v].cpt, bif.variables[v].cpt);
}

struct MalformedJson {
  const char* name;
  const char* text;
  const char* message;
};

void PrintTo(const MalformedJson& m, std::ostream* os) {
  *os << m.name;
}

class bayes_json_errors : public ::testing::TestWithParam<MalformedJson> {};

TEST_P(bayes_json_errors, NameTheJsonPointer) {
  const MalformedJson& m = GetParam();
  try {
    parse_json_graph(m.text, "g.json");
    FAIL() << "parsed without error";
  } catch (const GraphError& e) {
    EXPECT_EQ(std::string(e.what()), m.message);
  }
}

INSTANTIATE_TEST_SUITE_P(
    bayes, bayes_json_errors,
    ::testing::Values(
        MalformedJson{
            "Syntax", "{\"variables\": [\n  {\"name\": \"a\",}\n]}",
            "g.json: invalid JSON: parse error at line 2, column 16: syntax error while parsing object key - "
            "unexpected '}'; expected string literal"},
        MalformedJson{"NoVariables", "{\"name\": \"x\"}", "g.json: /: missing required key 'variables'"},
        MalformedJson{
            "LearnNotBoolean",
            R"({"variables": [{"name": "a", "states": ["t", "f"], "learn": "no", "cpt": [0.5, 0.5]}]})",
            "g.json: /variables/0/learn: expected true or false"},
        MalformedJson{
            "UnknownKey",
            R"({"variables": [{"name": "a", "states": ["t", "f"], "parent": [], "cpt": [0.5, 0.5]}]})",
            "g.json: /variables/0: unknown key 'parent' (did you mean 'parents'?)"},
        MalformedJson{
            "UnknownParent",
            R"({"variables": [{"name": "a", "states": ["t", "f"], "parents": ["bb"], "cpt": [[0.5, 0.5]]},
                                     {"name": "b", "states": ["t", "f"], "cpt": [0.5, 0.5]}]})",
            "g.json: /variables/0/parents/0: unknown variable 'bb' (did you mean 'b'?)"},
        MalformedJson{
            "RowSum",
            R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
                                     {"name": "b", "states": ["t", "f"], "parents": ["a"], "cpt": [[0.5, 0.5], [0.9, 0.2]]}]})",
            "g.json: /variables/1/cpt/1: variable 'b', CPT row (a=f): sums to 1.1 (|sum - 1| > 0.0001)"},
        MalformedJson{
            "RowLength", R"({"variables": [{"name": "a", "states": ["t", "f", "u"], "cpt": [[0.5, 0.5]]}]})",
            "g.json: /variables/0/cpt/0: row (no parents) of 'a' has 2 probabilities, expected 3 (one "
            "per state)"},
        MalformedJson{"MissingRow",
                      R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
                                     {"name": "b", "states": ["t", "f"], "parents": ["a"], "cpt": [[0.5, 0.5]]}]})",
                      "g.json: /variables/1/cpt: 'b' has no row for (a=f) (2 rows expected, 1 given)"},
        MalformedJson{"KeyedUnknownState",
                      R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
                                     {"name": "b", "states": ["t", "f"], "parents": ["a"],
                                      "cpt": [{"given": {"a": "t"}, "p": [0.5, 0.5]}, {"given": {"a": "maybe"}, "p": [0.5, 0.5]}]}]})",
                      "g.json: /variables/1/cpt/1/given/a: 'maybe' is not a state of 'a' (states: t, f)"},
        MalformedJson{"NotANumber",
                      R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, "0.5"]}]})",
                      "g.json: /variables/0/cpt/1: expected a number, got \"0.5\""},
        MalformedJson{"UnseenShareOutOfRange",
                      R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
                                     {"name": "b", "states": ["t", "f"], "parents": ["a"], "cpt": [[0.5, 0.5], [0.5, 0.5]],
                                      "unseen": [{"given": {"a": "f"}, "share": 1.0, "p": [0.5, 0.5]}]}]})",
                      "g.json: /variables/1/unseen/0/share: expected a share between 0 and 1 (exclusive)"},
        MalformedJson{
            "ReadOffTheLabelButLearnt",
            R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
                                     {"name": "b", "states": ["x", "y"], "parents": ["a"], "cpt": [[1, 0], [0, 1]],
                                      "from_label": {"variable": "a", "states": {"t": "x"}, "otherwise": "y"}}]})",
            "g.json: /variables/1/from_label: 'b' is read off the label, so its own table is the hand-set "
            "share of each kind and must be kept as written: expected \"learn\": false"},
        MalformedJson{"ReadOffAnUnknownLabelState",
                      R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
                                     {"name": "b", "states": ["x", "y"], "parents": ["a"], "learn": false,
                                      "cpt": [[1, 0], [0, 1]],
                                      "from_label": {"variable": "a", "states": {"true": "x"}, "otherwise": "y"}}]})",
                      "g.json: /variables/1/from_label/states/true: 'a' has no state 'true'"},
        MalformedJson{
            "ReadOffTheLabelWithoutOtherwise",
            R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
                                     {"name": "b", "states": ["x", "y"], "parents": ["a"], "learn": false,
                                      "cpt": [[1, 0], [0, 1]], "from_label": {"variable": "a", "states": {"t": "x"}}}]})",
            "g.json: /variables/1/from_label: not every state of 'a' is mapped: expected 'otherwise'"},
        MalformedJson{
            "LearnLikeAnUnknownState",
            R"({"variables": [{"name": "a", "states": ["ok", "slow"], "cpt": [0.5, 0.5],
                                     "learn_like": {"slow": "healthy"}}]})",
            "g.json: /variables/0/learn_like/slow: 'healthy' is not a state of 'a' (states: ok, slow)"},
        MalformedJson{"LearnLikeItself",
                      R"({"variables": [{"name": "a", "states": ["ok", "slow"], "cpt": [0.5, 0.5],
                                     "learn_like": {"slow": "slow"}}]})",
                      "g.json: /variables/0/learn_like/slow: state 'slow' cannot take its own rows"},
        MalformedJson{
            "LearnLikeAChain",
            R"({"variables": [{"name": "a", "states": ["ok", "slow", "hot"], "cpt": [0.4, 0.3, 0.3],
                                     "learn_like": {"slow": "ok", "hot": "slow"}}]})",
            "g.json: /variables/0/learn_like/hot: 'slow' takes its rows from another state itself: name "
            "that one"},
        MalformedJson{"UnseenRowSum",
                      R"({"variables": [{"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
                                     {"name": "b", "states": ["t", "f"], "parents": ["a"], "cpt": [[0.5, 0.5], [0.5, 0.5]],
                                      "unseen": [{"given": ["t"], "share": 0.3, "p": [0.5, 0.6]}]}]})",
                      "g.json: /variables/1/unseen/0/p: sums to 1.1 (|sum - 1| > 0.0001)"},
        MalformedJson{"DuplicateState",
                      R"({"variables": [{"name": "a", "states": ["t", "t"], "cpt": [0.5, 0.5]}]})",
                      "g.json: /variables/0/states/1: state 't' is listed twice"},
        MalformedJson{
            "Cycle",
            R"({"variables": [{"name": "a", "states": ["t", "f"], "parents": ["b"], "cpt": [[0.5, 0.5], [0.5, 0.5]]},
                                     {"name": "b", "states": ["t", "f"], "parents": ["a"], "cpt": [[0.5, 0.5], [0.5, 0.5]]}]})",
            "g.json: the graph has a directed cycle through a, b"},
        MalformedJson{
            "ThresholdOrder",
            R"({"variables": [{"name": "a", "states": ["lo", "mid", "hi"], "cpt": [0.2, 0.3, 0.5],
                                      "discretization": {"feature": "f", "thresholds": [2, 1]}}]})",
            "g.json: /variables/0/discretization/thresholds/1: thresholds must be strictly ascending "
            "(1 after 2)"},
        MalformedJson{
            "BinCount",
            R"({"variables": [{"name": "a", "states": ["lo", "mid", "hi"], "cpt": [0.2, 0.3, 0.5],
                                      "discretization": {"feature": "f", "thresholds": [1]}}]})",
            "g.json: /variables/0/discretization: 1 thresholds make 2 bins but 'a' has 3 states; list "
            "the state of "
            "each bin in 'states'"},
        MalformedJson{"WrongFormat", R"({"format": "other/2", "variables": []})",
                      "g.json: /format: expected \"cann-debug.bayes-graph/1\", got \"other/2\""},
        MalformedJson{
            "DefaultState",
            R"({"variables": [{"name": "a", "states": ["t", "f"], "default_state": "ok", "cpt": [0.5, 0.5]}]})",
            "g.json: /variables/0/default_state: 'ok' is not a state of 'a' (states: t, f)"}),
    [](const ::testing::TestParamInfo<MalformedJson>& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace cann_debug::bayes
