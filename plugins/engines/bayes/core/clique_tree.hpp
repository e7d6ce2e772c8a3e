// Building the clique tree of a junction tree from an elimination order: contraction of the elimination
// tree to maximal cliques, rooting of the forest, and re-attachment of each clique under the smallest
// clique holding its separator.
#pragma once

#include <vector>

#include "elimination_order.hpp"

namespace cann_debug::bayes::detail {

/// a is a subset of b (both sorted).
bool is_subset(const std::vector<int>& a, const std::vector<int>& b);

struct Contracted {
  std::vector<std::vector<int>> cliques;  // surviving cliques, variables sorted
  std::vector<std::vector<int>> adj;      // tree edges between surviving cliques
  std::vector<int> owner;                 // elimination step -> surviving clique holding its clique
};

/// A forest rooted: parent links and a parents-first order.
struct Rooted {
  std::vector<int> parent;  // -1 for roots
  std::vector<int> order;   // breadth-first from the roots: parents before children
  std::vector<int> roots;
};

/// The elimination tree of `elim` with every clique contained in a neighbour merged into it.
Contracted contract(const EliminationOrder& elim);
/// Roots every tree of the forest at its lowest-numbered clique.
Rooted root_forest(const std::vector<std::vector<int>>& adj);
/// Hangs each clique under the smallest clique holding its separator (see clique_tree.cpp); `sizes` are the
/// table sizes of `cliques`. Updates parent links and order.
void reattach_to_smallest_holders(const std::vector<std::vector<int>>& cliques,
                                  const std::vector<double>& sizes, Rooted& r);

}  // namespace cann_debug::bayes::detail
