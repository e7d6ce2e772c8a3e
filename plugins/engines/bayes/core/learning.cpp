#include "learning.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include "junction_tree.hpp"

namespace cann_debug::bayes {
namespace {

std::vector<double> normalised(const std::vector<double>& l) {
  std::vector<double> out = l;
  const double sum = std::accumulate(out.begin(), out.end(), 0.0);
  if (sum > 0.0)
    for (double& x : out) x /= sum;
  return out;
}

// The variables the graph reads off `label` (Variable::from_label).
std::vector<int> read_off(const Network& net, int label) {
  std::vector<int> out;
  for (std::size_t v = 0; v < net.size(); ++v)
    if (net.variables[v].from_label && net.variables[v].from_label->label == label)
      out.push_back(static_cast<int>(v));
  return out;
}

// Copies, in every learnt table with a parent that declares learn_like, the rows of the named state's
// configurations into the rows of the state that learns like it.
void copy_rows_learnt_alike(const Network& prior, Network& out, const LearnOptions& options) {
  for (std::size_t u = 0; u < prior.size(); ++u) {
    const auto& like = prior.variables[u].learn_like;
    if (like.empty()) continue;
    for (int child : prior.children(static_cast<int>(u))) {
      if (std::find(options.keep.begin(), options.keep.end(), child) != options.keep.end()) continue;
      Variable& var = out.variables[static_cast<std::size_t>(child)];
      const auto slot = static_cast<std::size_t>(
          std::find(var.parents.begin(), var.parents.end(), static_cast<int>(u)) - var.parents.begin());
      // The row stride of parent `slot`: the product of the cardinalities of the parents after it.
      std::size_t stride = 1;
      for (std::size_t i = slot + 1; i < var.parents.size(); ++i)
        stride *= prior.variables[static_cast<std::size_t>(var.parents[i])].cardinality();
      const std::size_t k = var.cardinality();
      const std::size_t rows = var.cpt.size() / k;
      for (std::size_t r = 0; r < rows; ++r) {
        const auto state = static_cast<int>(out.row_states(child, r)[slot]);
        for (const auto& [a, b] : like) {
          if (state != a) continue;
          const std::size_t from =
              r - static_cast<std::size_t>(a) * stride + static_cast<std::size_t>(b) * stride;
          std::copy_n(var.cpt.begin() + static_cast<std::ptrdiff_t>(from * k), k,
                      var.cpt.begin() + static_cast<std::ptrdiff_t>(r * k));
        }
      }
    }
  }
}

}  // namespace

Counts empty_counts(const Network& net) {
  Counts c;
  c.of.resize(net.size());
  for (std::size_t v = 0; v < net.size(); ++v) c.of[v].assign(net.variables[v].cpt.size(), 0.0);
  return c;
}

void read_off_label(const Network& net, int label, Likelihoods& observation) {
  if (!observation.observed(label)) return;
  const auto label_state = static_cast<std::size_t>(observation.strongest_state(label));
  for (int v : read_off(net, label)) {
    if (observation.observed(v)) continue;  // the case names the kind itself
    const Variable& var = net.variables[static_cast<std::size_t>(v)];
    observation.set_hard(v, var.from_label->state_of[label_state], var.cardinality());
  }
}

void add_case(const Network& net, const Likelihoods& observation, Counts& counts, double sign) {
  for (std::size_t v = 0; v < net.size(); ++v) {
    const int vi = static_cast<int>(v);
    if (!observation.observed(vi)) continue;
    const Variable& var = net.variables[v];
    const bool parents_seen =
        std::all_of(var.parents.begin(), var.parents.end(), [&](int p) { return observation.observed(p); });
    if (!parents_seen) continue;
    const auto child = normalised(observation.of(vi));
    // Row weights: product over parents, first parent slowest (the CPT layout).
    std::vector<double> rows{1.0};
    for (int p : var.parents) {
      const auto lp = normalised(observation.of(p));
      std::vector<double> next;
      next.reserve(rows.size() * lp.size());
      for (double w : rows)
        for (double x : lp) next.push_back(w * x);
      rows = std::move(next);
    }
    const std::size_t k = var.cardinality();
    for (std::size_t r = 0; r < rows.size(); ++r) {
      if (rows[r] == 0.0) continue;
      for (std::size_t s = 0; s < k; ++s) counts.of[v][r * k + s] += sign * rows[r] * child[s];
    }
  }
}

Network with_learnt_tables(const Network& prior, const Counts& counts, const LearnOptions& options) {
  Network out = prior;
  for (std::size_t v = 0; v < out.size(); ++v) {
    if (std::find(options.keep.begin(), options.keep.end(), static_cast<int>(v)) != options.keep.end())
      continue;
    Variable& var = out.variables[v];
    const std::size_t k = var.cardinality();
    const std::size_t rows = var.cpt.size() / k;
    for (std::size_t r = 0; r < rows; ++r) {
      double sum = 0.0;
      for (std::size_t s = 0; s < k; ++s) {
        // Soft counts subtracted for leave-one-out may leave -1e-17 behind.
        const double n = std::max(0.0, counts.of[v][r * k + s]);
        var.cpt[r * k + s] = options.prior_strength * prior.variables[v].cpt[r * k + s] + n;
        sum += var.cpt[r * k + s];
      }
      for (std::size_t s = 0; s < k; ++s)
        var.cpt[r * k + s] = sum > 0.0 ? var.cpt[r * k + s] / sum : 1.0 / static_cast<double>(k);
      // A share of the row's cases is of a kind the counted cases do not hold: kept at its hand-set row.
      if (const auto it = var.unseen.find(r); it != var.unseen.end())
        for (std::size_t s = 0; s < k; ++s)
          var.cpt[r * k + s] =
              (1.0 - it->second.share) * var.cpt[r * k + s] + it->second.share * it->second.p[s];
    }
  }
  copy_rows_learnt_alike(prior, out, options);
  return out;
}

LeaveOneOut leave_one_out(const Network& prior, const std::vector<Likelihoods>& cases, int label,
                          const LearnOptions& options) {
  LeaveOneOut out;
  Counts all = empty_counts(prior);
  for (const auto& c : cases)
    if (c.observed(label)) add_case(prior, c, all, 1.0);
  const std::vector<int> hidden = read_off(prior, label);
  double sum_ll = 0.0, sum_label = 0.0;
  std::size_t top1 = 0, top3 = 0;
  for (const auto& c : cases) {
    if (!c.observed(label)) continue;
    Counts rest = all;
    add_case(prior, c, rest, -1.0);
    const Network net = with_learnt_tables(prior, rest, options);
    JunctionTree tree(net);
    sum_ll += tree.query(c).log_p_evidence;
    Likelihoods without = c;
    without.clear(label);
    for (int v : hidden) without.clear(v);
    const auto posterior = tree.query(without).marginals[static_cast<std::size_t>(label)];
    const int truth = c.strongest_state(label);
    const double p = posterior[static_cast<std::size_t>(truth)];
    sum_label += std::log(std::max(p, 1e-300));
    // A tie counts against the label: a flat posterior names nothing.
    std::size_t better = 0;
    for (std::size_t s = 0; s < posterior.size(); ++s)
      if (static_cast<int>(s) != truth && posterior[s] >= p) ++better;
    if (better == 0) ++top1;
    if (better < 3) ++top3;
    out.label_posteriors.push_back(posterior);
    out.labels.push_back(truth);
    ++out.cases;
  }
  if (out.cases > 0) {
    const double n = static_cast<double>(out.cases);
    out.mean_log_likelihood = sum_ll / n;
    out.mean_log_label = sum_label / n;
    out.top1_accuracy = static_cast<double>(top1) / n;
    out.top3_accuracy = static_cast<double>(top3) / n;
  }
  return out;
}

}  // namespace cann_debug::bayes
