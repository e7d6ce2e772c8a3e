// The shipped inference graph (pipelines/graphs/inference.json) reads the start window's slowdown given the
// first calls: the first requests lie in that window, so a slow start window is mostly the slow first calls
// seen again, and a weak cold start (first-call costs of a few milliseconds) leaves the window normal.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "shipped_graph_support.hpp"

namespace cann_debug::bayes {
namespace {

using test::root_posterior;

const std::string kInferenceGraph = test::shipped_graph("inference");

// A service read from its signals alone (no config.json, so no configured warm-up): steady latency, no
// backlog, the threads fit.
std::map<std::string, std::string> served(const std::string& first_calls, const std::string& start) {
  return {{"first_calls", first_calls},      {"start_slowdown", start},        {"queue_backlog", "none"},
          {"latency_trend", "stable"},       {"thread_excess", "fits"},        {"runnable_pressure", "fits"},
          {"batch_norm_unfolded", "folded"}, {"preprocess_dominance", "minor"}};
}

TEST(inference_graph, TheStartWindowIsReadGivenTheFirstCalls) {
  const Network net = load_graph(kInferenceGraph);
  const auto& parents = net.variables[static_cast<std::size_t>(net.find("start_slowdown"))].parents;
  EXPECT_NE(std::find(parents.begin(), parents.end(), net.find("first_calls")), parents.end());
}

TEST(inference_graph, SlowFirstCallsInANormalStartWindowAreAColdStart) {
  const Network net = load_graph(kInferenceGraph);
  // Counted as a second symptom, the normal window weighed 4.5 against the cold start and left it even
  // with healthy (0.48 / 0.50) on a weak cold start read without its config.
  EXPECT_GT(root_posterior(net, served("slow", "normal"), "cold_start"), 0.7);
  // Nothing slow at the start: healthy, and a cold start is not in sight.
  EXPECT_GT(root_posterior(net, served("normal", "normal"), "healthy"), 0.6);
  EXPECT_LT(root_posterior(net, served("normal", "normal"), "cold_start"), 0.05);
  // A strong cold start, slow in both, stays one.
  EXPECT_GT(root_posterior(net, served("slow", "cold"), "cold_start"), 0.9);
  // A cold window whose first three calls were ordinary (a slow request a few calls in) still leans to a
  // cold start rather than to a healthy service.
  EXPECT_GT(root_posterior(net, served("normal", "cold"), "cold_start"),
            root_posterior(net, served("normal", "cold"), "healthy"));
}

}  // namespace
}  // namespace cann_debug::bayes
