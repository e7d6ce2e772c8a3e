// Exact inference: a junction tree compiled once per network from the best greedy elimination order,
// then Hugin propagation per query (collect with normalised messages, distribute) giving the posterior
// marginal of every variable and log P(evidence).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "cann_debug/causal_graph/network.hpp"
#include "elimination_order.hpp"
#include "inference.hpp"
#include "table_map.hpp"

namespace cann_debug::bayes {

/// Default limit on the entries of one clique table: 2^22 doubles = 32 MiB.
inline constexpr double kDefaultMaxCliqueEntries = 4194304.0;

struct CompileOptions {
  double max_clique_entries = kDefaultMaxCliqueEntries;
  /// Limit on the entries of all clique tables together (0 = 16 x max_clique_entries).
  double max_total_entries = 0.0;
};

struct JunctionTreeStats {
  std::size_t cliques = 0;
  double max_clique_entries = 0;
  std::size_t max_clique_variables = 0;
  double total_entries = 0;  // all clique tables
  std::string heuristic;     // elimination heuristic that won
};

class JunctionTree {
 public:
  /// Compiles the tree. Throws TooLargeError naming the network and the clique size when a table would
  /// exceed the limits; nothing big is allocated before that check.
  JunctionTree(const Network& net, const CompileOptions& options = {});

  /// Posterior marginals of every variable and log P(e). Throws EvidenceError when P(e) = 0. Not
  /// thread-safe (uses the tree's work buffers).
  InferenceResult query(const Likelihoods& evidence);

  const JunctionTreeStats& stats() const { return stats_; }
  std::size_t variables() const { return card_.size(); }

 private:
  struct Clique {
    std::vector<int> vars;  // table layout: the separator towards the parent first, then the rest
    std::size_t offset = 0;
    std::size_t size = 0;
  };
  struct Edge {  // child -> parent, in collect order
    int child = 0, parent = 0;
    std::size_t sep_offset = 0, sep_size = 0;
    IndexMap child_map, parent_map;
  };

  void build_tree(const Network& net, const EliminationOrder& elim, std::vector<int>& owner);
  void build_potentials(const Network& net, const std::vector<int>& family_clique);

  std::string network_;
  std::vector<std::size_t> card_;
  std::vector<Clique> cliques_;
  std::vector<Edge> edges_;
  std::vector<int> roots_;
  std::vector<int> host_;           // per variable: the smallest clique holding it
  std::vector<IndexMap> host_map_;  // host clique -> the variable
  std::vector<double> initial_, work_, sep_, scale_, buffer_;
  JunctionTreeStats stats_;
};

}  // namespace cann_debug::bayes
