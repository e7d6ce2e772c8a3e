#include "junction_tree.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "clique_tree.hpp"
#include "errors.hpp"

namespace cann_debug::bayes {
namespace {

using detail::contract;
using detail::reattach_to_smallest_holders;
using detail::root_forest;

std::string entries_text(double entries) {
  const double mib = entries * sizeof(double) / (1024.0 * 1024.0);
  const double log2 = std::log2(entries);
  if (std::fabs(log2 - std::round(log2)) < 1e-9)
    return fmt::format("{:.0f} entries (2^{:.0f}, {:.0f} MiB)", entries, log2, mib);
  return fmt::format("{:.0f} entries ({:.1f} MiB)", entries, mib);
}

[[noreturn]] void zero_evidence(const std::string& network) {
  throw EvidenceError(
      fmt::format("the evidence has probability 0 under graph '{}' (impossible observations)", network));
}

}  // namespace

JunctionTree::JunctionTree(const Network& net, const CompileOptions& options) : network_(net.display_name()) {
  for (const auto& v : net.variables) card_.push_back(v.cardinality());
  const EliminationOrder elim = best_elimination_order(net);
  stats_.heuristic = std::string(to_string(elim.heuristic));
  if (elim.max_clique_entries > options.max_clique_entries) {
    throw TooLargeError(
        fmt::format(
            "graph '{}' is too large for exact inference: the best elimination order found ({}) needs a "
            "clique table of {} over {} variables, above max_clique_entries = {}; raise "
            "max_clique_entries or use bayes_sampling",
            network_, stats_.heuristic, entries_text(elim.max_clique_entries), elim.max_clique_variables,
            entries_text(options.max_clique_entries)),
        elim.max_clique_entries, elim.max_clique_variables);
  }
  std::vector<int> owner;
  build_tree(net, elim, owner);
  const double total_limit =
      options.max_total_entries > 0 ? options.max_total_entries : 16.0 * options.max_clique_entries;
  if (stats_.total_entries > total_limit) {
    throw TooLargeError(
        fmt::format("graph '{}' is too large for exact inference: its {} clique tables need {} together "
                    "(largest {}), above the limit of {}; raise max_clique_entries or use bayes_sampling",
                    network_, stats_.cliques, entries_text(stats_.total_entries),
                    entries_text(stats_.max_clique_entries), entries_text(total_limit)),
        stats_.max_clique_entries, stats_.max_clique_variables);
  }
  // Each family {v} + parents lies in the clique of its first-eliminated member.
  std::vector<std::size_t> position(net.size());
  for (std::size_t i = 0; i < elim.order.size(); ++i) position[static_cast<std::size_t>(elim.order[i])] = i;
  std::vector<int> family_clique(net.size());
  for (std::size_t v = 0; v < net.size(); ++v) {
    std::size_t first = position[v];
    for (int p : net.variables[v].parents) first = std::min(first, position[static_cast<std::size_t>(p)]);
    family_clique[v] = owner[first];
  }
  build_potentials(net, family_clique);
}

void JunctionTree::build_tree(const Network& net, const EliminationOrder& elim, std::vector<int>& owner) {
  detail::Contracted shape = contract(elim);
  owner = std::move(shape.owner);
  std::vector<double> sizes;
  for (const auto& vars : shape.cliques) {
    double size = 1;
    for (int v : vars) size *= static_cast<double>(card_[static_cast<std::size_t>(v)]);
    sizes.push_back(size);
  }
  detail::Rooted rooted = root_forest(shape.adj);
  reattach_to_smallest_holders(shape.cliques, sizes, rooted);
  roots_ = rooted.roots;
  const std::vector<int>& parent = rooted.parent;
  const std::vector<int>& bfs = rooted.order;
  // Lay each clique out with its separator towards the parent outermost (in separator order) and its own
  // variables innermost: the two passes over that edge then read and scale long contiguous runs.
  const std::vector<std::vector<int>>& sorted = shape.cliques;
  for (std::size_t c = 0; c < sorted.size(); ++c) {
    std::vector<int> layout, rest;
    if (parent[c] >= 0) {
      const auto& up = sorted[static_cast<std::size_t>(parent[c])];
      for (int v : sorted[c]) (std::binary_search(up.begin(), up.end(), v) ? layout : rest).push_back(v);
    } else {
      rest = sorted[c];
    }
    layout.insert(layout.end(), rest.begin(), rest.end());
    cliques_.push_back({std::move(layout), 0, 0});
  }
  std::size_t offset = 0;
  for (auto& c : cliques_) {
    c.size = 1;
    for (int v : c.vars) c.size *= card_[static_cast<std::size_t>(v)];
    c.offset = offset;
    offset += c.size;
    const auto entries = static_cast<double>(c.size);
    if (entries > stats_.max_clique_entries) {
      stats_.max_clique_entries = entries;
      stats_.max_clique_variables = c.vars.size();
    }
    stats_.total_entries += entries;
  }
  stats_.cliques = cliques_.size();
  std::size_t sep_offset = 0, largest_sep = 1;
  for (auto it = bfs.rbegin(); it != bfs.rend(); ++it) {
    const int c = *it;
    const int p = parent[static_cast<std::size_t>(c)];
    if (p < 0) continue;
    Edge e;
    e.child = c;
    e.parent = p;
    const auto& cv = cliques_[static_cast<std::size_t>(c)].vars;
    const auto& pv = cliques_[static_cast<std::size_t>(p)].vars;
    std::vector<int> sep;
    std::set_intersection(sorted[static_cast<std::size_t>(c)].begin(),
                          sorted[static_cast<std::size_t>(c)].end(),
                          sorted[static_cast<std::size_t>(p)].begin(),
                          sorted[static_cast<std::size_t>(p)].end(), std::back_inserter(sep));
    e.sep_size = 1;
    for (int v : sep) e.sep_size *= card_[static_cast<std::size_t>(v)];
    e.sep_offset = sep_offset;
    sep_offset += e.sep_size;
    largest_sep = std::max(largest_sep, e.sep_size);
    e.child_map = IndexMap(cv, sep, card_);
    e.parent_map = IndexMap(pv, sep, card_);
    edges_.push_back(std::move(e));
  }
  sep_.assign(sep_offset, 0.0);
  scale_.assign(edges_.size(), 1.0);
  buffer_.assign(largest_sep, 0.0);
  // Each variable's evidence and marginal go through the smallest clique that holds it.
  host_.assign(net.size(), -1);
  for (std::size_t c = 0; c < cliques_.size(); ++c)
    for (int v : cliques_[c].vars) {
      int& h = host_[static_cast<std::size_t>(v)];
      if (h < 0 || cliques_[c].size < cliques_[static_cast<std::size_t>(h)].size) h = static_cast<int>(c);
    }
  for (std::size_t v = 0; v < net.size(); ++v)
    host_map_.emplace_back(cliques_[static_cast<std::size_t>(host_[v])].vars,
                           std::vector<int>{static_cast<int>(v)}, card_);
}

void JunctionTree::build_potentials(const Network& net, const std::vector<int>& family_clique) {
  std::size_t total = 0;
  for (const auto& c : cliques_) total += c.size;
  initial_.assign(total, 1.0);
  work_.assign(total, 0.0);
  for (std::size_t v = 0; v < net.size(); ++v) {
    const Variable& var = net.variables[v];
    std::vector<int> family = var.parents;
    family.push_back(static_cast<int>(v));
    const Clique& c = cliques_[static_cast<std::size_t>(family_clique[v])];
    multiply_in(IndexMap(c.vars, family, card_), initial_.data() + c.offset, var.cpt.data());
  }
}

InferenceResult JunctionTree::query(const Likelihoods& evidence) {
  std::copy(initial_.begin(), initial_.end(), work_.begin());
  for (std::size_t v = 0; v < card_.size() && v < evidence.size(); ++v) {
    if (!evidence.observed(static_cast<int>(v))) continue;
    const Clique& c = cliques_[static_cast<std::size_t>(host_[v])];
    multiply_in(host_map_[v], work_.data() + c.offset, evidence.of(static_cast<int>(v)).data());
  }
  InferenceResult result;
  double* work = work_.data();
  // Collect: children before parents; each message normalised, its sum kept for log P(e).
  for (std::size_t k = 0; k < edges_.size(); ++k) {
    const Edge& e = edges_[k];
    double* sep = sep_.data() + e.sep_offset;
    std::fill(sep, sep + e.sep_size, 0.0);
    project_add(e.child_map, work + cliques_[static_cast<std::size_t>(e.child)].offset, sep);
    const double z = std::accumulate(sep, sep + e.sep_size, 0.0);
    if (!(z > 0.0)) zero_evidence(network_);
    const double inv = 1.0 / z;
    for (std::size_t i = 0; i < e.sep_size; ++i) sep[i] *= inv;
    scale_[k] = z;
    result.log_p_evidence += std::log(z);
    multiply_in(e.parent_map, work + cliques_[static_cast<std::size_t>(e.parent)].offset, sep);
  }
  for (int r : roots_) {
    const Clique& c = cliques_[static_cast<std::size_t>(r)];
    double* t = work + c.offset;
    const double z = std::accumulate(t, t + c.size, 0.0);
    if (!(z > 0.0)) zero_evidence(network_);
    const double inv = 1.0 / z;
    for (std::size_t i = 0; i < c.size; ++i) t[i] *= inv;
    result.log_p_evidence += std::log(z);
  }
  // Distribute: parents before children. The child's table sums over the separator to z * sep (its
  // message before normalising), so multiplying by P(sep | e) / (z * sep) makes it P(child clique | e).
  for (std::size_t k = edges_.size(); k-- > 0;) {
    const Edge& e = edges_[k];
    const double* sep = sep_.data() + e.sep_offset;
    double* fresh = buffer_.data();
    std::fill(fresh, fresh + e.sep_size, 0.0);
    project_add(e.parent_map, work + cliques_[static_cast<std::size_t>(e.parent)].offset, fresh);
    for (std::size_t i = 0; i < e.sep_size; ++i) {
      const double old = sep[i] * scale_[k];
      fresh[i] = old > 0.0 ? fresh[i] / old : 0.0;
    }
    multiply_in(e.child_map, work + cliques_[static_cast<std::size_t>(e.child)].offset, fresh);
  }
  result.marginals.resize(card_.size());
  for (std::size_t v = 0; v < card_.size(); ++v) {
    auto& m = result.marginals[v];
    m.assign(card_[v], 0.0);
    project_add(host_map_[v], work + cliques_[static_cast<std::size_t>(host_[v])].offset, m.data());
    const double z = std::accumulate(m.begin(), m.end(), 0.0);
    if (z > 0.0)
      for (double& x : m) x /= z;
  }
  return result;
}

}  // namespace cann_debug::bayes
