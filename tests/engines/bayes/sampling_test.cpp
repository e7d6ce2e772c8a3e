// Likelihood weighting against the exact engine, with fixed seeds.
#include <gtest/gtest.h>

#include <cmath>
#include <ostream>

#include "bayes_test_support.hpp"
#include "cann_debug/causal_graph/graph_loader.hpp"
#include "cann_debug/causal_graph/json_graph.hpp"
#include "core/errors.hpp"
#include "core/junction_tree.hpp"
#include "core/sampling.hpp"

namespace cann_debug::bayes {
namespace {

TEST(bayes_sampling, IsDeterministicPerSeed) {
  const Network net = load_graph(test::data_file("mini_training.json"));
  const Likelihoods e =
      make_likelihoods(net, {{"loss_spike", "yes"}}, {{"grad_clip_hits", {{"low", 0.3}, {"high", 0.7}}}});
  const SamplingResult a = likelihood_weighting(net, e, {.samples = 20000, .seed = 7});
  const SamplingResult b = likelihood_weighting(net, e, {.samples = 20000, .seed = 7});
  const SamplingResult c = likelihood_weighting(net, e, {.samples = 20000, .seed = 8});
  EXPECT_EQ(a.marginals, b.marginals);
  EXPECT_NE(a.marginals, c.marginals);
  JunctionTree tree(net);
  const InferenceResult exact = tree.query(e);
  EXPECT_LT(max_abs_difference(a, exact), 0.02);
  EXPECT_NEAR(a.log_p_evidence, exact.log_p_evidence, 0.05);
  EXPECT_GT(a.effective_sample_size, 1000.0);
  EXPECT_EQ(a.marginals[static_cast<std::size_t>(net.find("loss_spike"))], (std::vector<double>{0.0, 1.0}));
}

TEST(bayes_sampling, ImpossibleEvidenceIsAnError) {
  const Network net = parse_json_graph(R"({"name": "det", "variables": [
      {"name": "a", "states": ["t", "f"], "cpt": [1, 0]}]})",
                                       "det.json");
  try {
    likelihood_weighting(net, make_likelihoods(net, {{"a", "f"}}, {}), {.samples = 10, .seed = 1});
    FAIL();
  } catch (const EvidenceError& e) {
    EXPECT_STREQ(e.what(),
                 "likelihood weighting on graph 'det': all 10 samples have weight 0 (the evidence is "
                 "impossible, or too unlikely for this many samples)");
  }
}

// Max |sampled - exact| over all marginals of the reference queries, 100000 samples, seed 1.
struct SamplingCase {
  const char* net;
  double tolerance;
};
void PrintTo(const SamplingCase& c, std::ostream* os) {
  *os << c.net;
}

class bayes_sampling_nets : public ::testing::TestWithParam<SamplingCase> {};

TEST_P(bayes_sampling_nets, CloseToExact) {
  if (!test::have_bn()) GTEST_SKIP() << "no shared BIF corpus";
  const auto [name, tolerance] = GetParam();
  const Network net = load_graph(test::bif(name));
  JunctionTree tree(net);
  double worst = 0.0;
  auto queries = test::reference_queries(name);
  if (!test::big_nets_enabled()) queries.resize(3);  // sanitizer / Debug builds: a quarter of the work
  for (const auto& q : queries) {
    const Likelihoods e = make_likelihoods(net, q.evidence, {});
    const double error =
        max_abs_difference(likelihood_weighting(net, e, {.samples = 100000, .seed = 1}), tree.query(e));
    worst = std::max(worst, error);
    EXPECT_LT(error, tolerance) << q.id;
  }
  std::printf("%s: likelihood weighting max abs error %.4f over %zu queries\n", name, worst, queries.size());
}

INSTANTIATE_TEST_SUITE_P(bayes, bayes_sampling_nets,
                         ::testing::Values(SamplingCase{"asia", 0.02}, SamplingCase{"alarm", 0.03}),
                         [](const auto& info) { return std::string(info.param.net); });

}  // namespace
}  // namespace cann_debug::bayes
