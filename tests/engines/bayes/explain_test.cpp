// Top-k causes, propagation paths and evidence ranking on graphs small enough to check by hand.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "bayes_test_support.hpp"
#include "cann_debug/causal_graph/graph_loader.hpp"
#include "core/explain.hpp"
#include "core/junction_tree.hpp"

namespace cann_debug::bayes {
namespace {

std::vector<std::string> labels(const Network& net, const std::vector<StateRef>& path) {
  std::vector<std::string> out;
  for (const auto& s : path)
    out.push_back(
        net.variables[static_cast<std::size_t>(s.variable)].name + "=" +
        net.variables[static_cast<std::size_t>(s.variable)].states[static_cast<std::size_t>(s.state)]);
  return out;
}

class bayes_explain : public ::testing::Test {
 protected:
  Explanation run(const Network& net, JunctionTree& tree, const Likelihoods& e, ExplainOptions options = {}) {
    const auto defaults = default_states(net, tree.query(Likelihoods(net.size())));
    return explain(
        net, defaults, [&](const Likelihoods& l) { return tree.query(l); }, e, tree.query(e), options);
  }
};

TEST_F(bayes_explain, DefaultStates) {
  const Network net = load_graph(test::data_file("mini_training.json"));
  JunctionTree tree(net);
  const auto d = default_states(net, tree.query(Likelihoods(net.size())));
  // "no" by name everywhere; grad_clip_hits {low, high} has no such name: its most probable prior state, low.
  for (std::size_t v = 0; v < net.size(); ++v) EXPECT_EQ(d[v], 0) << net.variables[v].name;
  EXPECT_EQ(parentless_variables(net), (std::vector<int>{net.find("lr_too_high"), net.find("bad_data")}));
}

TEST_F(bayes_explain, TopCausesPathsAndEvidenceRanking) {
  const Network net = load_graph(test::data_file("mini_training.json"));
  JunctionTree tree(net);
  const Likelihoods e = make_likelihoods(net, {{"loss_spike", "yes"}, {"grad_clip_hits", "high"}}, {});
  const Explanation x = run(net, tree, e);
  ASSERT_EQ(x.causes.size(), 2u);  // two roots, one non-default state each
  // From the hand derivation in junction_tree_test: P(e) = 0.16002.
  const double p_lr = 0.2 * 0.5089 / 0.16002, p_bad = 0.1 * 0.2052 / 0.16002;
  EXPECT_EQ(labels(net, {x.causes[0].cause}), std::vector<std::string>{"lr_too_high=yes"});
  EXPECT_NEAR(x.causes[0].probability, p_lr, 1e-14);
  EXPECT_EQ(labels(net, {x.causes[1].cause}), std::vector<std::string>{"bad_data=yes"});
  EXPECT_NEAR(x.causes[1].probability, p_bad, 1e-14);
  // Both symptoms are reached through grad_explosion with the same score and length: the one whose
  // evidence lr_too_high=yes makes likelier than lr_too_high=no does wins (grad_clip_hits; bad_data
  // explains part of loss_spike too). bad_data reaches loss_spike directly.
  EXPECT_EQ(labels(net, x.causes[0].path),
            (std::vector<std::string>{"lr_too_high=yes", "grad_explosion=yes", "grad_clip_hits=high"}));
  EXPECT_EQ(labels(net, x.causes[1].path), (std::vector<std::string>{"bad_data=yes", "loss_spike=yes"}));
  // Leave-one-out on the top cause lr_too_high=yes:
  //   without loss_spike: P(lr | clip=high) = 0.2 * 0.58 / (0.2 * 0.58 + 0.8 * 0.16)
  //   without clip:       P(lr | spike=yes) = 0.2 * 0.745 / (0.2 * 0.745 + 0.8 * 0.185)
  const double without_spike = 0.116 / (0.116 + 0.128);
  const double without_clip = 0.149 / (0.149 + 0.148);
  ASSERT_EQ(x.influence.size(), 2u);
  EXPECT_EQ(net.variables[static_cast<std::size_t>(x.influence[0].variable)].name, "loss_spike");
  EXPECT_NEAR(x.influence[0].log_ratio, std::log(p_lr / without_spike), 1e-13);
  EXPECT_EQ(net.variables[static_cast<std::size_t>(x.influence[1].variable)].name, "grad_clip_hits");
  EXPECT_NEAR(x.influence[1].log_ratio, std::log(p_lr / without_clip), 1e-13);
  // Per cause a clamped run and a run at the default state; one per left-out observation.
  EXPECT_EQ(x.propagations, 2u * 2u + 2u);
}

TEST_F(bayes_explain, EquallyShortRoutesGoToTheEvidenceTheCauseExplainsBest) {
  // Two abnormal symptoms one step from the cause: a_weak barely moves with it (0.3 vs 0.2), z_strong is
  // eighteen times likelier under it (0.9 vs 0.05). The name order alone would pick a_weak.
  const std::filesystem::path path = std::filesystem::path(::testing::TempDir()) / "two_symptoms.json";
  std::ofstream(path) << R"({"format": "cann-debug.bayes-graph/1", "name": "two", "variables": [
    {"name": "cause", "states": ["healthy", "fault"], "cpt": [0.7, 0.3]},
    {"name": "a_weak", "states": ["normal", "abnormal"], "parents": ["cause"], "cpt": [[0.8, 0.2], [0.7, 0.3]]},
    {"name": "z_strong", "states": ["normal", "abnormal"], "parents": ["cause"],
     "cpt": [[0.95, 0.05], [0.1, 0.9]]}]})";
  const Network net = load_graph(path.string());
  JunctionTree tree(net);
  const Likelihoods e = make_likelihoods(net, {{"a_weak", "abnormal"}, {"z_strong", "abnormal"}}, {});
  const Explanation x = run(net, tree, e);
  ASSERT_EQ(x.causes.size(), 1u);
  EXPECT_EQ(labels(net, x.causes[0].path), (std::vector<std::string>{"cause=fault", "z_strong=abnormal"}));
}

TEST_F(bayes_explain, OptionsLimitTheWork) {
  const Network net = load_graph(test::data_file("mini_training.json"));
  JunctionTree tree(net);
  // An observed root is a fact, not a candidate; top_k truncates; no paths or ranking when switched off.
  const Likelihoods e = make_likelihoods(net, {{"bad_data", "yes"}, {"loss_spike", "yes"}}, {});
  ExplainOptions o;
  o.top_k = 1;
  o.paths = false;
  o.evidence_ranking = false;
  const Explanation x = run(net, tree, e, o);
  ASSERT_EQ(x.causes.size(), 1u);
  EXPECT_EQ(x.causes[0].cause.variable, net.find("lr_too_high"));
  EXPECT_EQ(x.causes[0].path.size(), 1u);
  EXPECT_TRUE(x.influence.empty());
  EXPECT_EQ(x.propagations, 0u);
  // Explicit roots: a mechanism can be a candidate too.
  o = {};
  o.roots = {net.find("grad_explosion")};
  const Explanation y = run(net, tree, e, o);
  ASSERT_EQ(y.causes.size(), 1u);
  EXPECT_EQ(labels(net, y.causes[0].path),
            (std::vector<std::string>{"grad_explosion=yes", "loss_spike=yes"}));
}

TEST_F(bayes_explain, PathFollowsTheMostActivatedMechanism) {
  const Network net = load_graph(test::data_file("paths.json"));
  JunctionTree tree(net);
  const Likelihoods e = make_likelihoods(net, {{"T", "yes"}}, {});
  const Explanation x = run(net, tree, e);
  ASSERT_EQ(x.causes.size(), 1u);
  // With R = yes and T = yes: P(A, B) is proportional to P(A | R) P(B | R) P(T = yes | A, B):
  //   (y, y) 0.9 * 0.3 * 0.96 = 0.2592, (y, n) 0.9 * 0.7 * 0.8 = 0.504, (n, y) 0.1 * 0.3 * 0.8 = 0.024,
  //   (n, n) 0.1 * 0.7 * 0.01 = 0.0007; so P(A = yes) = 0.7632 / 0.7879 > P(B = yes) = 0.2832 / 0.7879.
  Likelihoods clamped = e;
  clamped.set_hard(net.find("R"), 1, 2);
  const InferenceResult q = tree.query(clamped);
  EXPECT_NEAR(q.marginals[static_cast<std::size_t>(net.find("A"))][1], 0.7632 / 0.7879, 1e-14);
  EXPECT_NEAR(q.marginals[static_cast<std::size_t>(net.find("B"))][1], 0.2832 / 0.7879, 1e-14);
  EXPECT_EQ(labels(net, x.causes[0].path), (std::vector<std::string>{"R=yes", "A=yes", "T=yes"}));
  // No observation below the cause: the path is the cause alone.
  const Explanation none = run(net, tree, Likelihoods(net.size()));
  EXPECT_EQ(labels(net, none.causes[0].path), std::vector<std::string>{"R=yes"});
  EXPECT_TRUE(none.influence.empty());
}

}  // namespace
}  // namespace cann_debug::bayes
