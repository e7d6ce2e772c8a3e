// Feature values to evidence: bins, soft likelihoods around thresholds, non-finite values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "bayes_test_support.hpp"
#include "cann_debug/causal_graph/graph_loader.hpp"
#include "core/discretization.hpp"

namespace cann_debug::bayes {
namespace {

TEST(bayes_discretization, HardBins) {
  Variable v;
  v.states = {"low", "mid", "high"};
  Discretization d;
  d.thresholds = {1.0, 2.0};
  d.bin_states = {0, 1, 2};
  EXPECT_EQ(bin_of(d, 0.5), 0u);
  EXPECT_EQ(bin_of(d, 1.0), 1u);  // a threshold belongs to the bin above it
  EXPECT_EQ(bin_of(d, 1.99), 1u);
  EXPECT_EQ(bin_of(d, 7.0), 2u);
  EXPECT_EQ(discretize(v, d, 1.5)->hard_state, 1);
  EXPECT_FALSE(discretize(v, d, std::numeric_limits<double>::quiet_NaN()).has_value());
  d.nonfinite_state = 2;
  EXPECT_EQ(discretize(v, d, std::numeric_limits<double>::infinity())->hard_state, 2);
  // Several bins may share a state: outside [1, 2) is "high", inside "low".
  d.bin_states = {2, 0, 2};
  EXPECT_EQ(discretize(v, d, -3.0)->hard_state, 2);
  EXPECT_EQ(discretize(v, d, 1.2)->hard_state, 0);
}

TEST(bayes_discretization, SoftLikelihoodsFromTheGraph) {
  const Network net = load_graph(test::data_file("mini_training.json"));
  const Variable& spike = net.variables[static_cast<std::size_t>(net.find("loss_spike"))];
  // threshold 3, width 0.5, x = 3.5: L(no) = F(3) = 1 / (1 + e^((3.5 - 3) / 0.5)) = 1 / (1 + e), L(yes) = 1 -
  // L(no).
  const auto r = discretize(spike, *spike.discretization, 3.5);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ(r->hard_state, -1);
  ASSERT_EQ(r->soft.size(), 2u);
  EXPECT_NEAR(r->soft[0], 1.0 / (1.0 + std::exp(1.0)), 1e-15);
  EXPECT_NEAR(r->soft[1], 1.0 - 1.0 / (1.0 + std::exp(1.0)), 1e-15);
  // Far from the threshold the reading is practically hard; non-finite values go to nonfinite_state.
  EXPECT_LT(discretize(spike, *spike.discretization, 20.0)->soft[0], 1e-14);
  EXPECT_EQ(discretize(spike, *spike.discretization, std::nan(""))->hard_state, 1);
  // Three soft bins over three states sum to 1.
  Variable v;
  v.states = {"a", "b", "c"};
  Discretization d;
  d.thresholds = {0.0, 1.0};
  d.bin_states = {0, 1, 2};
  d.soft_width = 0.25;
  const auto three = discretize(v, d, 0.5);
  EXPECT_NEAR(three->soft[0] + three->soft[1] + three->soft[2], 1.0, 1e-15);
  EXPECT_NEAR(three->soft[0], three->soft[2], 1e-15);  // symmetric around the middle of the bin
  EXPECT_NEAR(three->soft[1], 1.0 / (1.0 + std::exp(-2.0)) - 1.0 / (1.0 + std::exp(2.0)), 1e-15);
}

}  // namespace
}  // namespace cann_debug::bayes
