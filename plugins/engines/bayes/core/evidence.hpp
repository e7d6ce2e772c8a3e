// Evidence as likelihood vectors: hard evidence var = s is the indicator of s; soft (likelihood, or
// "virtual") evidence var -> {state: likelihood} gives the listed likelihoods and 0 to unlisted states.
#pragma once

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "cann_debug/causal_graph/network.hpp"

namespace cann_debug::bayes {

class Likelihoods {
 public:
  Likelihoods() = default;
  explicit Likelihoods(std::size_t variables) : of_(variables) {}

  std::size_t size() const { return of_.size(); }
  bool observed(int v) const { return !of_[static_cast<std::size_t>(v)].empty(); }
  /// The likelihood vector of v (empty when v is not observed).
  const std::vector<double>& of(int v) const { return of_[static_cast<std::size_t>(v)]; }
  /// Variables with evidence, ascending.
  std::vector<int> observed_variables() const;
  bool empty() const;

  void set_hard(int v, int state, std::size_t cardinality);
  void set(int v, std::vector<double> likelihood) {
    of_[static_cast<std::size_t>(v)] = std::move(likelihood);
  }
  void clear(int v) { of_[static_cast<std::size_t>(v)].clear(); }
  /// The state with the largest likelihood (the observed state for hard evidence), or -1.
  int strongest_state(int v) const;

 private:
  std::vector<std::vector<double>> of_;
};

/// Resolves evidence given by names. Throws EvidenceError for an unknown variable (with a did-you-mean)
/// or state (listing the states), a variable given both hard and soft evidence, and soft likelihoods that
/// are negative, not finite, or all zero.
Likelihoods make_likelihoods(const Network& net, const std::map<std::string, std::string>& hard,
                             const std::map<std::string, std::map<std::string, double>>& soft);

}  // namespace cann_debug::bayes
