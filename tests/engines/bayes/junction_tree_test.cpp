// Exact inference on hand-checkable graphs: hard and soft evidence, P(e), impossible evidence, forests,
// the clique limit, and the table kernels underneath.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>

#include "bayes_test_support.hpp"
#include "cann_debug/causal_graph/graph_loader.hpp"
#include "cann_debug/causal_graph/json_graph.hpp"
#include "core/errors.hpp"
#include "core/junction_tree.hpp"
#include "core/table_map.hpp"

namespace cann_debug::bayes {
namespace {

using ::testing::HasSubstr;

double marginal(const Network& net, const InferenceResult& r, const std::string& v, const std::string& s) {
  const int vi = net.find(v);
  return r.marginals.at(static_cast<std::size_t>(vi))
      .at(static_cast<std::size_t>(net.variables[static_cast<std::size_t>(vi)].state_index(s)));
}

class bayes_mini : public ::testing::Test {
 protected:
  Network net = load_graph(test::data_file("mini_training.json"));
  JunctionTree tree{net};
};

TEST_F(bayes_mini, PriorMarginals) {
  const InferenceResult r = tree.query(Likelihoods(net.size()));
  // P(G=yes) = 0.2 * 0.8 + 0.8 * 0.1 = 0.24; P(C=high) = 0.24 * 0.7 + 0.76 * 0.1 = 0.244.
  EXPECT_NEAR(marginal(net, r, "grad_explosion", "yes"), 0.24, 1e-15);
  EXPECT_NEAR(marginal(net, r, "grad_clip_hits", "high"), 0.244, 1e-15);
  // P(S=yes) = sum_G,B P(G) P(B) P(S=yes | G, B).
  const double s = 0.24 * (0.9 * 0.9 + 0.1 * 0.95) + 0.76 * (0.9 * 0.05 + 0.1 * 0.6);
  EXPECT_NEAR(marginal(net, r, "loss_spike", "yes"), s, 1e-15);
  EXPECT_NEAR(r.log_p_evidence, 0.0, 1e-15);
}

TEST_F(bayes_mini, HardEvidenceAndProbabilityOfEvidence) {
  const Likelihoods e = make_likelihoods(net, {{"loss_spike", "yes"}, {"grad_clip_hits", "high"}}, {});
  const InferenceResult r = tree.query(e);
  // P(S=yes, C=high | G): G=yes 0.7 * (0.9 * 0.9 + 0.95 * 0.1) = 0.6335; G=no 0.1 * (0.05 * 0.9 + 0.6 * 0.1)
  // = 0.0105.
  const double e_given_lr_yes = 0.8 * 0.6335 + 0.2 * 0.0105;      // 0.5089
  const double e_given_lr_no = 0.1 * 0.6335 + 0.9 * 0.0105;       // 0.0728
  const double p_e = 0.2 * e_given_lr_yes + 0.8 * e_given_lr_no;  // 0.16002
  EXPECT_NEAR(std::exp(r.log_p_evidence), p_e, 1e-15);
  EXPECT_NEAR(std::exp(r.log_p_evidence), 0.16002, 1e-15);
  EXPECT_NEAR(marginal(net, r, "lr_too_high", "yes"), 0.2 * e_given_lr_yes / p_e, 1e-14);
  // P(e | B=yes) = 0.24 * 0.95 * 0.7 + 0.76 * 0.6 * 0.1 = 0.2052.
  EXPECT_NEAR(marginal(net, r, "bad_data", "yes"), 0.1 * 0.2052 / p_e, 1e-14);
  EXPECT_DOUBLE_EQ(marginal(net, r, "loss_spike", "yes"), 1.0);
  EXPECT_DOUBLE_EQ(marginal(net, r, "grad_clip_hits", "low"), 0.0);
}

TEST_F(bayes_mini, SoftEvidenceIsALikelihood) {
  // Likelihood 0.2 for low, 0.8 for high: P(e) = sum_C P(C) L(C) = 0.756 * 0.2 + 0.244 * 0.8 = 0.3464.
  const Likelihoods e = make_likelihoods(net, {}, {{"grad_clip_hits", {{"low", 0.2}, {"high", 0.8}}}});
  const InferenceResult r = tree.query(e);
  EXPECT_NEAR(std::exp(r.log_p_evidence), 0.3464, 1e-15);
  EXPECT_NEAR(marginal(net, r, "grad_clip_hits", "high"), 0.244 * 0.8 / 0.3464, 1e-15);
  // P(C=high | L=yes) = 0.8 * 0.7 + 0.2 * 0.1 = 0.58, so P(e | L=yes) = 0.42 * 0.2 + 0.58 * 0.8 = 0.548.
  EXPECT_NEAR(marginal(net, r, "lr_too_high", "yes"), 0.2 * 0.548 / 0.3464, 1e-15);
  // Scaling a likelihood changes P(e) but not the posterior.
  const InferenceResult scaled =
      tree.query(make_likelihoods(net, {}, {{"grad_clip_hits", {{"low", 2.0}, {"high", 8.0}}}}));
  EXPECT_NEAR(scaled.log_p_evidence, r.log_p_evidence + std::log(10.0), 1e-14);
  EXPECT_NEAR(max_abs_difference(scaled, r), 0.0, 1e-15);
  // An indicator likelihood is hard evidence.
  const InferenceResult soft = tree.query(make_likelihoods(net, {}, {{"loss_spike", {{"yes", 1.0}}}}));
  const InferenceResult hard = tree.query(make_likelihoods(net, {{"loss_spike", "yes"}}, {}));
  EXPECT_NEAR(max_abs_difference(soft, hard), 0.0, 1e-15);
  EXPECT_NEAR(soft.log_p_evidence, hard.log_p_evidence, 1e-15);
}

TEST_F(bayes_mini, EvidenceErrors) {
  EXPECT_THROW(
      {
        try {
          make_likelihoods(net, {{"loss_spik", "yes"}}, {});
        } catch (const EvidenceError& e) {
          EXPECT_STREQ(e.what(),
                       "evidence names unknown variable 'loss_spik' of graph 'mini_training' (did you mean "
                       "'loss_spike'?)");
          throw;
        }
      },
      EvidenceError);
  try {
    make_likelihoods(net, {{"loss_spike", "maybe"}}, {});
    FAIL();
  } catch (const EvidenceError& e) {
    EXPECT_STREQ(e.what(),
                 "evidence gives 'loss_spike' state 'maybe', which is not one of its states (no, yes)");
  }
  try {
    make_likelihoods(net, {}, {{"loss_spike", {{"yes", -1.0}}}});
    FAIL();
  } catch (const EvidenceError& e) {
    EXPECT_STREQ(e.what(),
                 "soft evidence on 'loss_spike': likelihood of 'yes' is -1, expected a finite number >= 0");
  }
  EXPECT_THROW(make_likelihoods(net, {}, {{"loss_spike", {{"yes", 0.0}}}}), EvidenceError);
  EXPECT_THROW(make_likelihoods(net, {{"loss_spike", "yes"}}, {{"loss_spike", {{"yes", 1.0}}}}),
               EvidenceError);
}

TEST(bayes_jt, ImpossibleEvidenceIsAnError) {
  const Network net = parse_json_graph(R"({"name": "det", "variables": [
      {"name": "a", "states": ["t", "f"], "cpt": [0.5, 0.5]},
      {"name": "b", "states": ["t", "f"], "parents": ["a"], "cpt": [[1, 0], [0, 1]]}]})",
                                       "det.json");
  JunctionTree tree(net);
  try {
    tree.query(make_likelihoods(net, {{"a", "t"}, {"b", "f"}}, {}));
    FAIL();
  } catch (const EvidenceError& e) {
    EXPECT_STREQ(e.what(), "the evidence has probability 0 under graph 'det' (impossible observations)");
  }
  // The tree is reusable after a failed query.
  EXPECT_NEAR(tree.query(make_likelihoods(net, {{"b", "f"}}, {})).marginals[0][1], 1.0, 1e-15);
}

TEST(bayes_jt, ForestsAndSingleStateVariables) {
  const Network net = parse_json_graph(R"({"variables": [
      {"name": "a", "states": ["t", "f"], "cpt": [0.3, 0.7]},
      {"name": "b", "states": ["t", "f"], "parents": ["a"], "cpt": [[0.9, 0.1], [0.2, 0.8]]},
      {"name": "c", "states": ["x", "y", "z"], "cpt": [0.2, 0.3, 0.5]},
      {"name": "one", "states": ["only"], "parents": ["c"], "cpt": [[1], [1], [1]]},
      {"name": "d", "states": ["t", "f"], "parents": ["c"], "cpt": [[0.5, 0.5], [0.1, 0.9], [1, 0]]}]})",
                                       "forest.json");
  JunctionTree tree(net);
  const InferenceResult r = tree.query(make_likelihoods(net, {{"b", "t"}, {"d", "t"}}, {}));
  // Two independent parts: P(e) multiplies.
  const double pb = 0.3 * 0.9 + 0.7 * 0.2, pd = 0.2 * 0.5 + 0.3 * 0.1 + 0.5 * 1.0;
  EXPECT_NEAR(std::exp(r.log_p_evidence), pb * pd, 1e-15);
  EXPECT_NEAR(r.marginals[0][0], 0.27 / pb, 1e-15);
  EXPECT_NEAR(r.marginals[2][2], 0.5 / pd, 1e-15);
  EXPECT_EQ(r.marginals[3], std::vector<double>{1.0});
}

TEST(bayes_jt, CliqueLimitIsAClearError) {
  // A child with 12 binary parents needs a 2^13-entry clique.
  nlohmann::json vars = nlohmann::json::array();
  nlohmann::json parents = nlohmann::json::array();
  for (int i = 0; i < 12; ++i) {
    vars.push_back({{"name", "p" + std::to_string(i)}, {"states", {"t", "f"}}, {"cpt", {0.5, 0.5}}});
    parents.push_back("p" + std::to_string(i));
  }
  nlohmann::json rows = nlohmann::json::array();
  for (int r = 0; r < 4096; ++r) rows.push_back({0.5, 0.5});
  vars.push_back({{"name", "child"}, {"states", {"t", "f"}}, {"parents", parents}, {"cpt", rows}});
  const Network net =
      parse_json_graph(nlohmann::json{{"name", "wide"}, {"variables", vars}}.dump(), "wide.json");
  CompileOptions small;
  small.max_clique_entries = 4096;
  try {
    JunctionTree tree(net, small);
    FAIL();
  } catch (const TooLargeError& e) {
    EXPECT_EQ(e.clique_entries(), 8192.0);
    EXPECT_EQ(e.clique_variables(), 13u);
    EXPECT_THAT(e.what(), HasSubstr("graph 'wide' is too large for exact inference"));
    EXPECT_THAT(e.what(),
                HasSubstr("needs a clique table of 8192 entries (2^13, 0 MiB) over 13 variables, above "
                          "max_clique_entries = 4096 entries (2^12, 0 MiB)"));
  }
  JunctionTree fits(net, {.max_clique_entries = 8192});
  EXPECT_EQ(fits.stats().max_clique_entries, 8192.0);
}

TEST(bayes_jt, IndexMapCollapsesAndWalks) {
  // big over (a, b, c) with cards 2, 3, 4; small over (c, a) in that layout order.
  const std::vector<std::size_t> card = {2, 3, 4};
  IndexMap map({0, 1, 2}, {2, 0}, card);
  EXPECT_EQ(map.big_size(), 24u);
  std::vector<double> big(24);
  for (std::size_t i = 0; i < 24; ++i) big[i] = static_cast<double>(i);
  std::vector<double> small(8, 0.0);
  project_add(map, big.data(), small.data());
  // small[c * 2 + a] = sum_b big[a * 12 + b * 4 + c].
  for (std::size_t a = 0; a < 2; ++a)
    for (std::size_t c = 0; c < 4; ++c) {
      double expect = 0;
      for (std::size_t b = 0; b < 3; ++b) expect += big[a * 12 + b * 4 + c];
      EXPECT_EQ(small[c * 2 + a], expect);
    }
  std::vector<double> ones(24, 1.0);
  multiply_in(map, ones.data(), small.data());
  EXPECT_EQ(ones[1 * 12 + 2 * 4 + 3], small[3 * 2 + 1]);
}

}  // namespace
}  // namespace cann_debug::bayes
