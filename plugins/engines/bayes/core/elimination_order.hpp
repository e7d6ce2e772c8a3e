// Greedy elimination orders on the moral graph of a network (min-fill, min-weight, weighted min-fill)
// and the elimination cliques they produce: the triangulation a junction tree is built from.
#pragma once

#include <cstddef>
#include <string_view>
#include <vector>

#include "cann_debug/causal_graph/network.hpp"

namespace cann_debug::bayes {

enum class EliminationHeuristic {
  kMinFill,          // fewest fill edges; ties: smallest clique table, then lowest index
  kMinWeight,        // smallest clique table; ties: fewest fill edges, then lowest index
  kWeightedMinFill,  // smallest sum over fill edges of card(a) * card(b); ties: smallest clique table
};
std::string_view to_string(EliminationHeuristic h);

struct EliminationOrder {
  EliminationHeuristic heuristic = EliminationHeuristic::kMinFill;
  std::vector<int> order;                 // variables in elimination order
  std::vector<std::vector<int>> cliques;  // cliques[i]: order[i] and its neighbours when eliminated, sorted
  double max_clique_entries = 0;          // largest product of cardinalities over the cliques
  std::size_t max_clique_variables = 0;   // variables of that clique
  double total_entries = 0;               // sum over the cliques
};

/// Undirected moral graph: each variable linked to its parents, its children and its children's parents.
std::vector<std::vector<int>> moral_graph(const Network& net);

EliminationOrder eliminate(const std::vector<std::vector<int>>& graph, const std::vector<std::size_t>& card,
                           EliminationHeuristic heuristic);

/// Runs every heuristic and keeps the order with the smallest largest clique (ties: smallest total).
EliminationOrder best_elimination_order(const Network& net);

}  // namespace cann_debug::bayes
