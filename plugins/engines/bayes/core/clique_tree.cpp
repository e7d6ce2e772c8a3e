#include "clique_tree.hpp"

#include <algorithm>
#include <iterator>

namespace cann_debug::bayes::detail {

bool is_subset(const std::vector<int>& a, const std::vector<int>& b) {
  return std::includes(b.begin(), b.end(), a.begin(), a.end());
}

Contracted contract(const EliminationOrder& elim) {
  const std::size_t n = elim.order.size();
  std::vector<std::size_t> position(n);
  for (std::size_t i = 0; i < n; ++i) position[static_cast<std::size_t>(elim.order[i])] = i;
  // Elimination tree: clique i hangs under the clique of the first-eliminated of its other members.
  std::vector<std::vector<int>> adj(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t parent = n;
    for (int v : elim.cliques[i])
      if (v != elim.order[i]) parent = std::min(parent, position[static_cast<std::size_t>(v)]);
    if (parent < n) {
      adj[i].push_back(static_cast<int>(parent));
      adj[parent].push_back(static_cast<int>(i));
    }
  }
  // One pass suffices: by running intersection no new containment appears after a merge.
  std::vector<int> merged_into(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    for (int j : adj[i]) {
      if (!is_subset(elim.cliques[i], elim.cliques[static_cast<std::size_t>(j)])) continue;
      auto& aj = adj[static_cast<std::size_t>(j)];
      aj.erase(std::remove(aj.begin(), aj.end(), static_cast<int>(i)), aj.end());
      for (int k : adj[i]) {
        if (k == j) continue;
        auto& ak = adj[static_cast<std::size_t>(k)];
        std::replace(ak.begin(), ak.end(), static_cast<int>(i), j);
        aj.push_back(k);
      }
      adj[i].clear();
      merged_into[i] = j;
      break;
    }
  }
  Contracted out;
  std::vector<int> new_id(n, -1);
  for (std::size_t i = 0; i < n; ++i)
    if (merged_into[i] < 0) {
      new_id[i] = static_cast<int>(out.cliques.size());
      out.cliques.push_back(elim.cliques[i]);
    }
  out.owner.assign(n, -1);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t j = i;
    while (merged_into[j] >= 0) j = static_cast<std::size_t>(merged_into[j]);
    out.owner[i] = new_id[j];
  }
  out.adj.resize(out.cliques.size());
  for (std::size_t i = 0; i < n; ++i)
    for (int j : adj[i])
      if (new_id[i] >= 0)
        out.adj[static_cast<std::size_t>(new_id[i])].push_back(new_id[static_cast<std::size_t>(j)]);
  return out;
}

Rooted root_forest(const std::vector<std::vector<int>>& adj) {
  Rooted r;
  r.parent.assign(adj.size(), -2);
  for (std::size_t root = 0; root < adj.size(); ++root) {
    if (r.parent[root] != -2) continue;
    r.parent[root] = -1;
    r.roots.push_back(static_cast<int>(root));
    std::size_t head = r.order.size();
    r.order.push_back(static_cast<int>(root));
    while (head < r.order.size()) {
      const int c = r.order[head++];
      for (int d : adj[static_cast<std::size_t>(c)])
        if (r.parent[static_cast<std::size_t>(d)] == -2) {
          r.parent[static_cast<std::size_t>(d)] = c;
          r.order.push_back(d);
        }
    }
  }
  return r;
}

// Hangs each clique under the smallest clique that holds its separator (the cliques holding a set of
// variables form a connected subtree, so any of them keeps running intersection; the clique's own subtree
// is excluded to keep a tree). Messages are then multiplied into, and projected from, small tables
// instead of a hub clique with many children.
void reattach_to_smallest_holders(const std::vector<std::vector<int>>& cliques,
                                  const std::vector<double>& sizes, Rooted& r) {
  const std::size_t n = cliques.size();
  std::vector<std::vector<int>> children(n);
  for (std::size_t c = 0; c < n; ++c)
    if (r.parent[c] >= 0) children[static_cast<std::size_t>(r.parent[c])].push_back(static_cast<int>(c));
  std::vector<int> seen(n, -1);
  for (int c : r.order) {
    const int p = r.parent[static_cast<std::size_t>(c)];
    if (p < 0) continue;
    std::vector<int> sep;
    const auto& cv = cliques[static_cast<std::size_t>(c)];
    const auto& pv = cliques[static_cast<std::size_t>(p)];
    std::set_intersection(cv.begin(), cv.end(), pv.begin(), pv.end(), std::back_inserter(sep));
    int best = p;
    std::vector<int> queue{p};
    seen[static_cast<std::size_t>(p)] = c;
    seen[static_cast<std::size_t>(c)] = c;
    for (std::size_t head = 0; head < queue.size(); ++head) {
      const int q = queue[head];
      if (sizes[static_cast<std::size_t>(q)] < sizes[static_cast<std::size_t>(best)]) best = q;
      auto visit = [&](int x) {
        if (x < 0 || seen[static_cast<std::size_t>(x)] == c ||
            !is_subset(sep, cliques[static_cast<std::size_t>(x)]))
          return;
        seen[static_cast<std::size_t>(x)] = c;
        queue.push_back(x);
      };
      visit(r.parent[static_cast<std::size_t>(q)]);
      for (int x : children[static_cast<std::size_t>(q)]) visit(x);
    }
    if (best == p) continue;
    auto& siblings = children[static_cast<std::size_t>(p)];
    siblings.erase(std::remove(siblings.begin(), siblings.end(), c), siblings.end());
    children[static_cast<std::size_t>(best)].push_back(c);
    r.parent[static_cast<std::size_t>(c)] = best;
  }
  r.order.clear();
  for (int root : r.roots) {
    std::size_t head = r.order.size();
    r.order.push_back(root);
    while (head < r.order.size())
      for (int d : children[static_cast<std::size_t>(r.order[head++])]) r.order.push_back(d);
  }
}

}  // namespace cann_debug::bayes::detail
