// Learning tables from labelled cases: the counts, the Dirichlet prior, and leave-one-out scoring.
#include <gtest/gtest.h>

#include <cmath>

#include "cann_debug/causal_graph/json_graph.hpp"
#include "core/learning.hpp"

namespace cann_debug::bayes {
namespace {

// cause {healthy, fault} -> symptom {low, high}; the prior says nothing (0.5 everywhere).
Network two_node_graph() {
  return parse_json_graph(R"({"name": "g", "variables": [
      {"name": "cause", "states": ["healthy", "fault"], "default_state": "healthy", "cpt": [0.5, 0.5]},
      {"name": "symptom", "states": ["low", "high"], "parents": ["cause"], "cpt": [[0.5, 0.5], [0.5, 0.5]]}]})",
                          "g.json");
}

// Hard evidence on the cause (variable 0) and on a two-state symptom (variable `symptom_variable`); -1 leaves
// either unobserved.
Likelihoods observe(const Network& net, int cause, int symptom, int symptom_variable = 1) {
  Likelihoods l(net.size());
  if (cause >= 0) l.set_hard(0, cause, 2);
  if (symptom >= 0) l.set_hard(symptom_variable, symptom, 2);
  return l;
}

TEST(bayes_learning, CountsWithDirichletPrior) {
  const Network net = two_node_graph();
  Counts counts = empty_counts(net);
  for (int i = 0; i < 3; ++i) add_case(net, observe(net, 1, 1), counts);  // fault -> high, 3 times
  add_case(net, observe(net, 0, 0), counts);                              // healthy -> low, once
  const Network learnt = with_learnt_tables(net, counts, {.prior_strength = 2.0});
  // cause: (2*0.5 + 1, 2*0.5 + 3) / 6
  EXPECT_NEAR(learnt.variables[0].cpt[0], 2.0 / 6.0, 1e-12);
  EXPECT_NEAR(learnt.variables[0].cpt[1], 4.0 / 6.0, 1e-12);
  // symptom | fault: (1 + 0, 1 + 3) / 5; symptom | healthy: (1 + 1, 1 + 0) / 3
  EXPECT_NEAR(learnt.variables[1].cpt[2], 1.0 / 5.0, 1e-12);
  EXPECT_NEAR(learnt.variables[1].cpt[3], 4.0 / 5.0, 1e-12);
  EXPECT_NEAR(learnt.variables[1].cpt[0], 2.0 / 3.0, 1e-12);
}

TEST(bayes_learning, SoftEvidenceSpreadsOneCase) {
  const Network net = two_node_graph();
  Likelihoods l(net.size());
  l.set_hard(0, 1, 2);
  l.set(1, {1.0, 3.0});  // 25% low, 75% high
  Counts counts = empty_counts(net);
  add_case(net, l, counts);
  EXPECT_NEAR(counts.of[1][2], 0.25, 1e-12);
  EXPECT_NEAR(counts.of[1][3], 0.75, 1e-12);
  EXPECT_EQ(counts.of[1][0] + counts.of[1][1], 0.0);
}

TEST(bayes_learning, UnobservedParentIsNotCounted) {
  const Network net = two_node_graph();
  Counts counts = empty_counts(net);
  add_case(net, observe(net, -1, 1), counts);
  for (double c : counts.of[1]) EXPECT_EQ(c, 0.0);
  for (double c : counts.of[0]) EXPECT_EQ(c, 0.0);
}

TEST(bayes_learning, LeaveOneOutScoresEachCaseWithoutItself) {
  const Network net = two_node_graph();
  std::vector<Likelihoods> cases;
  for (int i = 0; i < 4; ++i) cases.push_back(observe(net, 1, 1));
  for (int i = 0; i < 4; ++i) cases.push_back(observe(net, 0, 0));
  const LeaveOneOut loo = leave_one_out(net, cases, 0, {.prior_strength = 2.0});
  EXPECT_EQ(loo.cases, 8u);
  EXPECT_DOUBLE_EQ(loo.top1_accuracy, 1.0);
  // Held out fault case: 3 fault cases and 4 healthy ones remain.
  // P(symptom=high | fault) = (1 + 3) / 5, P(high | healthy) = 1 / 6, P(fault) = (1 + 3) / 9.
  const double pf = 4.0 / 9.0, ph = 5.0 / 9.0, hf = 4.0 / 5.0, hh = 1.0 / 6.0;
  const double p_label = pf * hf / (pf * hf + ph * hh);
  EXPECT_NEAR(std::exp(loo.mean_log_label), p_label, 1e-9);
  EXPECT_NEAR(loo.mean_log_likelihood, std::log(pf * hf), 1e-9);
  EXPECT_NEAR(loo.label_posteriors[0][1], p_label, 1e-9);

  // A symptom that says the opposite of the label fails top-1 for that case.
  cases.push_back(observe(net, 1, 0));
  const LeaveOneOut worse = leave_one_out(net, cases, 0, {.prior_strength = 2.0});
  EXPECT_LT(worse.top1_accuracy, 1.0);
  EXPECT_DOUBLE_EQ(worse.top3_accuracy, 1.0);  // two states: always in the top 3
}

TEST(bayes_learning, FlatPosteriorIsNotACorrectAnswer) {
  const Network net = two_node_graph();
  // No symptom evidence at all and balanced labels: every held-out posterior is tilted towards the
  // other label, never a win.
  std::vector<Likelihoods> cases = {observe(net, 0, -1), observe(net, 1, -1)};
  const LeaveOneOut loo = leave_one_out(net, cases, 0, {.prior_strength = 2.0});
  EXPECT_DOUBLE_EQ(loo.top1_accuracy, 0.0);
}

// A row with an unseen kind keeps that share at its hand-set row however many cases learning counts: the
// counted cases say how the kinds they hold behave, not how often the world brings the others.
TEST(bayes_learning, AnUnseenKindKeepsItsShareOfTheRow) {
  const Network net = parse_json_graph(R"({"name": "g", "variables": [
      {"name": "cause", "states": ["healthy", "fault"], "default_state": "healthy", "cpt": [0.5, 0.5]},
      {"name": "symptom", "states": ["low", "high"], "parents": ["cause"], "cpt": [[0.5, 0.5], [0.5, 0.5]],
       "unseen": [{"given": {"cause": "fault"}, "share": 0.3, "p": [0.9, 0.1]}]}]})",
                                       "g.json");
  Counts counts = empty_counts(net);
  for (int i = 0; i < 98; ++i) add_case(net, observe(net, 1, 1), counts);  // fault -> high, 98 times
  add_case(net, observe(net, 0, 0), counts);
  const Network learnt = with_learnt_tables(net, counts, {.prior_strength = 2.0});
  // fault row: 0.7 * (1, 99) / 100 + 0.3 * (0.9, 0.1)
  EXPECT_NEAR(learnt.variables[1].cpt[2], 0.7 * 0.01 + 0.3 * 0.9, 1e-12);
  EXPECT_NEAR(learnt.variables[1].cpt[3], 0.7 * 0.99 + 0.3 * 0.1, 1e-12);
  // The healthy row has none: learnt as usual, (1 + 1, 1 + 0) / 3.
  EXPECT_NEAR(learnt.variables[1].cpt[0], 2.0 / 3.0, 1e-12);
}

// cause -> kind (hidden, read off the label) -> symptom. Faults come in two kinds: one shows (repeating),
// one never does and looks like a healthy run (never); the cases hold only the first.
Network hidden_kind_graph() {
  return parse_json_graph(R"({"name": "g", "variables": [
      {"name": "cause", "states": ["healthy", "fault"], "default_state": "healthy", "cpt": [0.5, 0.5]},
      {"name": "kind", "states": ["fresh", "repeating", "never"], "learn": false, "parents": ["cause"],
       "cpt": [[1, 0, 0], [0, 0.7, 0.3]],
       "from_label": {"variable": "cause", "states": {"fault": "repeating"}, "otherwise": "fresh"}},
      {"name": "symptom", "states": ["low", "high"], "parents": ["kind"],
       "cpt": [[0.5, 0.5], [0.5, 0.5], [0.9, 0.1]]}]})",
                          "g.json");
}

Likelihoods observe_case(const Network& net, int cause, int symptom) {
  return observe(net, cause, symptom, 2);
}

// Learning reads the hidden kind off each case's label, so the symptom learns one row per kind the cases
// hold and keeps the hand-set row of the kind they lack.
TEST(bayes_learning, AKindReadOffTheLabelLearnsItsRowAndKeepsTheOneTheCasesLack) {
  const Network net = hidden_kind_graph();
  Counts counts = empty_counts(net);
  for (int i = 0; i < 8; ++i) {
    Likelihoods fault = observe_case(net, 1, 1);
    read_off_label(net, 0, fault);
    EXPECT_EQ(fault.strongest_state(1), 1);  // repeating
    add_case(net, fault, counts);
    Likelihoods healthy = observe_case(net, 0, 0);
    read_off_label(net, 0, healthy);
    EXPECT_EQ(healthy.strongest_state(1), 0);  // fresh
    add_case(net, healthy, counts);
  }
  Likelihoods unlabelled = observe_case(net, -1, 1);
  read_off_label(net, 0, unlabelled);
  EXPECT_FALSE(unlabelled.observed(1));
  const Network learnt = with_learnt_tables(net, counts, {.prior_strength = 2.0, .keep = {1}});
  EXPECT_NEAR(learnt.variables[2].cpt[1], 1.0 / 10.0, 1e-12);  // fresh: (1 + 8, 1 + 0) / 10 -> high 0.1
  EXPECT_NEAR(learnt.variables[2].cpt[3], 9.0 / 10.0, 1e-12);  // repeating: high 0.9
  EXPECT_NEAR(learnt.variables[2].cpt[5], 0.1, 1e-12);         // never: the hand-set row
  EXPECT_EQ(learnt.variables[1].cpt, net.variables[1].cpt);    // the kinds' shares, as written
}

// A case that knows its kind names it (a fault of the kind that does not show): the label's default does not
// overwrite it, its row is learnt from it, and leave-one-out clears it like a kind read off the label.
TEST(bayes_learning, AKindTheCaseNamesIsKeptAndLearntFrom) {
  const Network net = hidden_kind_graph();
  Counts counts = empty_counts(net);
  std::vector<Likelihoods> cases;
  for (int i = 0; i < 8; ++i) {
    Likelihoods named = observe_case(net, 1, 1);  // fault, symptom high
    named.set_hard(1, 2, 3);                      // the case says: never, not the label's repeating
    read_off_label(net, 0, named);
    EXPECT_EQ(named.strongest_state(1), 2);
    add_case(net, named, counts);
    cases.push_back(named);
    Likelihoods plain = observe_case(net, 0, 0);
    read_off_label(net, 0, plain);
    EXPECT_EQ(plain.strongest_state(1), 0);  // fresh, off the label
    add_case(net, plain, counts);
    cases.push_back(plain);
  }
  const Network learnt = with_learnt_tables(net, counts, {.prior_strength = 2.0, .keep = {1}});
  EXPECT_NEAR(learnt.variables[2].cpt[5], (0.2 + 8.0) / 10.0, 1e-12);  // never: 2 * (0.9, 0.1) + (0, 8)
  EXPECT_NEAR(learnt.variables[2].cpt[3], 0.5, 1e-12);                 // repeating: no case, as written
  EXPECT_NEAR(learnt.variables[2].cpt[1], 1.0 / 10.0, 1e-12);          // fresh: (1 + 8, 1 + 0)
  const LeaveOneOut loo = leave_one_out(net, cases, 0, {.prior_strength = 2.0, .keep = {1}});
  EXPECT_EQ(loo.cases, 16u);
  EXPECT_DOUBLE_EQ(loo.top1_accuracy, 1.0);
  // Kept in, the named kind would make the posterior of the fault 1 (a healthy run is never 'never').
  for (const auto& posterior : loo.label_posteriors) EXPECT_LT(posterior[1], 0.999);
}

// Leave-one-out clears the kinds read off the label with it: left in, they would name the label.
TEST(bayes_learning, LeaveOneOutDoesNotLeakTheLabelThroughAKindReadOffIt) {
  const Network net = hidden_kind_graph();
  std::vector<Likelihoods> cases;
  for (int i = 0; i < 4; ++i)
    for (int cause : {0, 1}) {
      cases.push_back(observe_case(net, cause, 0));  // the symptom says nothing of the label
      read_off_label(net, 0, cases.back());
    }
  const LeaveOneOut loo = leave_one_out(net, cases, 0, {.prior_strength = 2.0, .keep = {1}});
  EXPECT_EQ(loo.cases, 8u);
  EXPECT_LT(loo.top1_accuracy, 1.0);
  for (const auto& posterior : loo.label_posteriors) EXPECT_LT(posterior[0], 0.99);
}

TEST(bayes_learning, AStateThatLearnsLikeAnotherTakesItsLearntRows) {
  // cause {healthy, fault, slow} -> symptom given a context {a, b}; `slow` (a systems cause) leaves the
  // symptom as healthy runs show it; the kept table `timing` keeps its own rows.
  const Network net = parse_json_graph(R"({"name": "g", "variables": [
      {"name": "cause", "states": ["healthy", "fault", "slow"], "cpt": [0.4, 0.4, 0.2],
       "learn_like": {"slow": "healthy"}},
      {"name": "ctx", "states": ["a", "b"], "cpt": [0.5, 0.5]},
      {"name": "symptom", "states": ["low", "high"], "parents": ["cause", "ctx"],
       "cpt": [[0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.5, 0.5], [0.9, 0.1], [0.2, 0.8]]},
      {"name": "timing", "states": ["steady", "dropped"], "parents": ["cause"], "learn": false,
       "cpt": [[0.95, 0.05], [0.95, 0.05], [0.1, 0.9]]}]})",
                                       "g.json");
  Counts counts = empty_counts(net);
  auto add = [&](int cause, int ctx, int symptom) {
    Likelihoods l(net.size());
    l.set_hard(0, cause, 3);
    l.set_hard(1, ctx, 2);
    l.set_hard(2, symptom, 2);
    add_case(net, l, counts);
  };
  for (int i = 0; i < 6; ++i) add(0, 0, 0);  // healthy in context a: low
  for (int i = 0; i < 2; ++i) add(0, 1, 1);  // healthy in context b: high
  add(1, 0, 1);
  const Network learnt = with_learnt_tables(net, counts, {.prior_strength = 2.0, .keep = {3}});
  const auto& cpt = learnt.variables[2].cpt;
  // Rows (cause, ctx): healthy/a = 0, healthy/b = 1, ..., slow/a = 4, slow/b = 5.
  EXPECT_NEAR(cpt[0], 7.0 / 8.0, 1e-12);          // healthy, a: (1 + 6) / (2 + 6)
  EXPECT_NEAR(cpt[2 * 1 + 1], 3.0 / 4.0, 1e-12);  // healthy, b: (1 + 2) / (2 + 2)
  for (std::size_t s = 0; s < 2; ++s) {
    EXPECT_DOUBLE_EQ(cpt[4 * 2 + s], cpt[0 * 2 + s]);  // slow, a = healthy, a (not its prior 0.9, 0.1)
    EXPECT_DOUBLE_EQ(cpt[5 * 2 + s], cpt[1 * 2 + s]);  // slow, b = healthy, b
  }
  EXPECT_EQ(learnt.variables[3].cpt, net.variables[3].cpt);  // the hand-set timing table is kept
}

}  // namespace
}  // namespace cann_debug::bayes

namespace cann_debug::bayes {
namespace {

TEST(bayes_learning, KeptTablesStayAsTheGraphHasThem) {
  const Network net = two_node_graph();
  Counts counts = empty_counts(net);
  for (int i = 0; i < 5; ++i) add_case(net, observe(net, 1, 1), counts);
  const Network learnt = with_learnt_tables(net, counts, {.prior_strength = 2.0, .keep = {0}});
  EXPECT_EQ(learnt.variables[0].cpt, net.variables[0].cpt);   // the label prior is kept
  EXPECT_NEAR(learnt.variables[1].cpt[3], 6.0 / 7.0, 1e-12);  // the symptom table is learnt
}

}  // namespace
}  // namespace cann_debug::bayes
