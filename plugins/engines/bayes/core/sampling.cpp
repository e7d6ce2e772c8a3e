#include "sampling.hpp"

#include <cmath>
#include <random>

#include <fmt/format.h>

#include "errors.hpp"

namespace cann_debug::bayes {
namespace {

// A uniform double in [0, 1) from the top 53 bits: the same stream on every platform for one seed.
double uniform(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace

SamplingResult likelihood_weighting(const Network& net, const Likelihoods& evidence,
                                    const SamplingOptions& options) {
  const std::size_t n = net.size();
  const auto& order = net.topological_order();
  // Row strides of each variable's parents (first parent slowest).
  std::vector<std::vector<std::size_t>> strides(n);
  for (std::size_t v = 0; v < n; ++v) {
    const auto& parents = net.variables[v].parents;
    strides[v].assign(parents.size(), 1);
    for (std::size_t i = parents.size(); i-- > 1;)
      strides[v][i - 1] = strides[v][i] * net.variables[static_cast<std::size_t>(parents[i])].cardinality();
  }
  std::vector<std::vector<double>> counts(n);
  for (std::size_t v = 0; v < n; ++v) counts[v].assign(net.variables[v].cardinality(), 0.0);
  std::vector<int> state(n, 0);
  std::vector<double> proposal;
  std::mt19937_64 rng(options.seed);
  double sum_w = 0.0, sum_w2 = 0.0;
  for (std::size_t k = 0; k < options.samples; ++k) {
    double w = 1.0;
    for (int vi : order) {
      const auto v = static_cast<std::size_t>(vi);
      const Variable& var = net.variables[v];
      std::size_t row = 0;
      for (std::size_t i = 0; i < var.parents.size(); ++i)
        row += static_cast<std::size_t>(state[static_cast<std::size_t>(var.parents[i])]) * strides[v][i];
      const std::size_t card = var.cardinality();
      const double* p = var.cpt.data() + row * card;
      if (!evidence.observed(vi)) {
        double u = uniform(rng);
        std::size_t s = 0;
        while (s + 1 < card && u >= p[s]) u -= p[s++];
        while (p[s] == 0.0 && s > 0) --s;  // rounding ran past the last possible state
        state[v] = static_cast<int>(s);
        continue;
      }
      const auto& lik = evidence.of(vi);
      proposal.resize(card);
      double z = 0.0;
      for (std::size_t s = 0; s < card; ++s) z += proposal[s] = p[s] * lik[s];
      w *= z;
      if (z <= 0.0) break;
      double u = uniform(rng) * z;
      std::size_t s = 0;
      while (s + 1 < card && (u >= proposal[s] || proposal[s] == 0.0)) u -= proposal[s++];
      while (proposal[s] == 0.0 && s > 0) --s;  // rounding ran past the last positive state
      state[v] = static_cast<int>(s);
    }
    if (w <= 0.0) continue;
    sum_w += w;
    sum_w2 += w * w;
    for (std::size_t v = 0; v < n; ++v) counts[v][static_cast<std::size_t>(state[v])] += w;
  }
  if (!(sum_w > 0.0))
    throw EvidenceError(
        fmt::format("likelihood weighting on graph '{}': all {} samples have weight 0 (the evidence is "
                    "impossible, or too unlikely for this many samples)",
                    net.display_name(), options.samples));
  SamplingResult result;
  result.samples = options.samples;
  result.effective_sample_size = sum_w * sum_w / sum_w2;
  result.log_p_evidence = std::log(sum_w / static_cast<double>(options.samples));
  result.marginals = std::move(counts);
  for (auto& m : result.marginals)
    for (double& x : m) x /= sum_w;
  return result;
}

}  // namespace cann_debug::bayes
