#include "elimination_order.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <limits>
#include <tuple>

namespace cann_debug::bayes {
namespace {

using Word = std::uint64_t;

class Bitset {
 public:
  explicit Bitset(std::size_t n = 0) : words_((n + 63) / 64, 0) {}
  void set(std::size_t i) { words_[i / 64] |= Word{1} << (i % 64); }
  void reset(std::size_t i) { words_[i / 64] &= ~(Word{1} << (i % 64)); }
  bool test(std::size_t i) const { return (words_[i / 64] >> (i % 64)) & 1u; }
  const std::vector<Word>& words() const { return words_; }
  template <typename F>
  void for_each(F&& f) const {
    for (std::size_t w = 0; w < words_.size(); ++w)
      for (Word bits = words_[w]; bits != 0; bits &= bits - 1)
        f(w * 64 + static_cast<std::size_t>(std::countr_zero(bits)));
  }

 private:
  std::vector<Word> words_;
};

class Eliminator {
 public:
  Eliminator(const std::vector<std::vector<int>>& graph, const std::vector<std::size_t>& card,
             EliminationHeuristic h)
      : n_(graph.size()), card_(card), heuristic_(h), adj_(n_, Bitset(n_)), alive_(n_, true), score_(n_) {
    for (std::size_t v = 0; v < n_; ++v)
      for (int u : graph[v]) {
        adj_[v].set(static_cast<std::size_t>(u));
        adj_[static_cast<std::size_t>(u)].set(v);
      }
    for (std::size_t v = 0; v < n_; ++v) score_[v] = score(v);
  }

  EliminationOrder run() {
    EliminationOrder out;
    out.heuristic = heuristic_;
    for (std::size_t step = 0; step < n_; ++step) {
      std::size_t best = n_;
      for (std::size_t v = 0; v < n_; ++v)
        if (alive_[v] && (best == n_ || score_[v] < score_[best])) best = v;
      std::vector<std::size_t> nbrs;
      adj_[best].for_each([&](std::size_t u) { nbrs.push_back(u); });
      std::vector<int> clique{static_cast<int>(best)};
      double entries = static_cast<double>(card_[best]);
      for (std::size_t u : nbrs) {
        clique.push_back(static_cast<int>(u));
        entries *= static_cast<double>(card_[u]);
      }
      std::sort(clique.begin(), clique.end());
      if (entries > out.max_clique_entries) {
        out.max_clique_entries = entries;
        out.max_clique_variables = clique.size();
      }
      out.total_entries += entries;
      out.order.push_back(static_cast<int>(best));
      out.cliques.push_back(std::move(clique));
      // Connect the neighbours pairwise, then remove the variable.
      for (std::size_t a : nbrs)
        for (std::size_t b : nbrs)
          if (a != b) adj_[a].set(b);
      for (std::size_t u : nbrs) adj_[u].reset(best);
      alive_[best] = false;
      // Scores change for the neighbours and for nodes adjacent to them (their neighbourhoods gained edges).
      Bitset dirty(n_);
      for (std::size_t u : nbrs) {
        dirty.set(u);
        adj_[u].for_each([&](std::size_t w) { dirty.set(w); });
      }
      dirty.for_each([&](std::size_t u) { score_[u] = score(u); });
    }
    return out;
  }

 private:
  using Score = std::tuple<double, double, std::size_t>;

  Score score(std::size_t v) const {
    const auto& mask = adj_[v].words();
    double weight = static_cast<double>(card_[v]);
    double fill = 0.0, weighted_fill = 0.0;
    adj_[v].for_each([&](std::size_t a) {
      weight *= static_cast<double>(card_[a]);
      const auto& row = adj_[a].words();
      if (heuristic_ == EliminationHeuristic::kWeightedMinFill) {
        for (std::size_t w = 0; w < mask.size(); ++w)
          for (Word bits = mask[w] & ~row[w]; bits != 0; bits &= bits - 1) {
            const std::size_t b = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
            if (b > a) weighted_fill += static_cast<double>(card_[a] * card_[b]);
          }
      } else {
        std::size_t missing = 0;
        for (std::size_t w = 0; w < mask.size(); ++w)
          missing += static_cast<std::size_t>(std::popcount(mask[w] & ~row[w]));
        fill += static_cast<double>(missing - 1);  // a itself is in mask but not in its own row
      }
    });
    switch (heuristic_) {
      case EliminationHeuristic::kMinFill:
        return {fill / 2, weight, v};
      case EliminationHeuristic::kMinWeight:
        return {weight, fill / 2, v};
      case EliminationHeuristic::kWeightedMinFill:
        return {weighted_fill, weight, v};
    }
    return {0, 0, v};
  }

  std::size_t n_;
  const std::vector<std::size_t>& card_;
  EliminationHeuristic heuristic_;
  std::vector<Bitset> adj_;
  std::vector<bool> alive_;
  std::vector<Score> score_;
};

}  // namespace

std::string_view to_string(EliminationHeuristic h) {
  switch (h) {
    case EliminationHeuristic::kMinFill:
      return "min-fill";
    case EliminationHeuristic::kMinWeight:
      return "min-weight";
    case EliminationHeuristic::kWeightedMinFill:
      return "weighted-min-fill";
  }
  return "?";
}

std::vector<std::vector<int>> moral_graph(const Network& net) {
  std::vector<std::vector<int>> g(net.size());
  for (std::size_t v = 0; v < net.size(); ++v) {
    const auto& parents = net.variables[v].parents;
    for (std::size_t i = 0; i < parents.size(); ++i) {
      g[v].push_back(parents[i]);
      for (std::size_t j = i + 1; j < parents.size(); ++j)
        g[static_cast<std::size_t>(parents[i])].push_back(parents[j]);
    }
  }
  return g;
}

EliminationOrder eliminate(const std::vector<std::vector<int>>& graph, const std::vector<std::size_t>& card,
                           EliminationHeuristic heuristic) {
  return Eliminator(graph, card, heuristic).run();
}

EliminationOrder best_elimination_order(const Network& net) {
  const auto graph = moral_graph(net);
  std::vector<std::size_t> card;
  for (const auto& v : net.variables) card.push_back(v.cardinality());
  EliminationOrder best;
  bool first = true;
  for (auto h : {EliminationHeuristic::kMinFill, EliminationHeuristic::kMinWeight,
                 EliminationHeuristic::kWeightedMinFill}) {
    EliminationOrder candidate = eliminate(graph, card, h);
    if (first || std::tie(candidate.max_clique_entries, candidate.total_entries) <
                     std::tie(best.max_clique_entries, best.total_entries)) {
      best = std::move(candidate);
      first = false;
    }
  }
  return best;
}

}  // namespace cann_debug::bayes
