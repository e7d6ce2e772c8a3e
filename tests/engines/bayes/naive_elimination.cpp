#include "naive_elimination.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

#include <fmt/format.h>

#include "core/errors.hpp"
#include "core/table_map.hpp"

namespace cann_debug::bayes::bench {
namespace {

struct Factor {
  std::vector<int> vars;  // table layout order
  std::vector<double> values;
};

class Eliminator {
 public:
  Eliminator(const Network& net, NaiveOrder order, double limit) : net_(net), limit_(limit) {
    for (const auto& v : net.variables) card_.push_back(v.cardinality());
    order_ = net.topological_order();
    if (order == NaiveOrder::kReverseTopological) std::reverse(order_.begin(), order_.end());
  }

  Factor product(const std::vector<const Factor*>& fs) const {
    Factor out;
    for (const Factor* f : fs) out.vars.insert(out.vars.end(), f->vars.begin(), f->vars.end());
    std::sort(out.vars.begin(), out.vars.end());
    out.vars.erase(std::unique(out.vars.begin(), out.vars.end()), out.vars.end());
    double size = 1;
    for (int v : out.vars) size *= static_cast<double>(card_[static_cast<std::size_t>(v)]);
    if (size > limit_)
      throw TooLargeError(fmt::format("naive elimination on '{}' needs a factor of {:.0f} entries",
                                      net_.display_name(), size),
                          size, out.vars.size());
    out.values.assign(static_cast<std::size_t>(size), 1.0);
    for (const Factor* f : fs)
      multiply_in(IndexMap(out.vars, f->vars, card_), out.values.data(), f->values.data());
    return out;
  }

  Factor sum_out(const Factor& f, int var) const {
    Factor out;
    for (int v : f.vars)
      if (v != var) out.vars.push_back(v);
    std::size_t size = 1;
    for (int v : out.vars) size *= card_[static_cast<std::size_t>(v)];
    out.values.assign(size, 0.0);
    project_add(IndexMap(f.vars, out.vars, card_), f.values.data(), out.values.data());
    return out;
  }

  // Unnormalised P(target, e) by eliminating every other variable in topological order.
  Factor eliminate_all_but(const std::vector<Factor>& base, int target) const {
    std::vector<Factor> pool = base;
    for (int y : order_) {
      if (y == target) continue;
      std::vector<const Factor*> with;
      std::vector<Factor> rest;
      for (const Factor& f : pool)
        if (std::find(f.vars.begin(), f.vars.end(), y) != f.vars.end()) with.push_back(&f);
      if (with.empty()) continue;
      Factor merged = sum_out(product(with), y);
      for (Factor& f : pool)
        if (std::find(f.vars.begin(), f.vars.end(), y) == f.vars.end()) rest.push_back(std::move(f));
      rest.push_back(std::move(merged));
      pool = std::move(rest);
    }
    std::vector<const Factor*> all;
    for (const Factor& f : pool) all.push_back(&f);
    return product(all);
  }

 private:
  const Network& net_;
  double limit_;
  std::vector<std::size_t> card_;
  std::vector<int> order_;
};

}  // namespace

InferenceResult naive_all_marginals(const Network& net, const Likelihoods& evidence, NaiveOrder order,
                                    double max_factor_entries) {
  Eliminator elim(net, order, max_factor_entries);
  std::vector<Factor> base;
  for (std::size_t v = 0; v < net.size(); ++v) {
    Factor f;
    f.vars = net.variables[v].parents;
    f.vars.push_back(static_cast<int>(v));
    f.values = net.variables[v].cpt;
    base.push_back(std::move(f));
    if (evidence.observed(static_cast<int>(v)))
      base.push_back({{static_cast<int>(v)}, evidence.of(static_cast<int>(v))});
  }
  InferenceResult out;
  out.marginals.resize(net.size());
  for (std::size_t v = 0; v < net.size(); ++v) {
    Factor m = elim.eliminate_all_but(base, static_cast<int>(v));
    const double z = std::accumulate(m.values.begin(), m.values.end(), 0.0);
    if (v == 0) out.log_p_evidence = std::log(z);
    for (double& x : m.values) x /= z;
    out.marginals[v] = std::move(m.values);
  }
  return out;
}

}  // namespace cann_debug::bayes::bench
