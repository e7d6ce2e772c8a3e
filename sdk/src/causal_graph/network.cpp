#include "cann_debug/causal_graph/network.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <queue>
#include <set>

#include <fmt/format.h>

#include "cann_debug/causal_graph/graph_error.hpp"

namespace cann_debug::bayes {

int Variable::state_index(std::string_view state) const {
  for (std::size_t i = 0; i < states.size(); ++i)
    if (states[i] == state) return static_cast<int>(i);
  return -1;
}

int Network::find(std::string_view variable) const {
  auto it = index_.find(std::string(variable));
  return it == index_.end() ? -1 : it->second;
}

std::size_t Network::rows(int v) const {
  std::size_t r = 1;
  for (int p : variables[v].parents) r *= variables[p].cardinality();
  return r;
}

std::vector<std::size_t> Network::row_states(int v, std::size_t row) const {
  const auto& parents = variables[static_cast<std::size_t>(v)].parents;
  std::vector<std::size_t> states(parents.size());
  for (std::size_t i = parents.size(); i-- > 0;) {
    const std::size_t card = variables[static_cast<std::size_t>(parents[i])].cardinality();
    states[i] = row % card;
    row /= card;
  }
  return states;
}

std::string Network::row_label(int v, std::size_t row) const {
  const auto& parents = variables[v].parents;
  const std::vector<std::size_t> states = row_states(v, row);
  std::vector<std::string> parts(parents.size());
  for (std::size_t i = 0; i < parents.size(); ++i) {
    const Variable& p = variables[static_cast<std::size_t>(parents[i])];
    parts[i] = p.name + "=" + p.states[states[i]];
  }
  return parts.empty() ? std::string("(no parents)") : fmt::format("({})", fmt::join(parts, ", "));
}

std::string Network::display_name() const {
  if (!name.empty() && name != "unknown") return name;
  const std::string stem = std::filesystem::path(origin).stem().string();
  return stem.empty() ? std::string("network") : stem;
}

std::string check_row(const double* row, std::size_t n, double tolerance) {
  double sum = 0.0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!std::isfinite(row[i]) || row[i] < 0.0) return fmt::format("entry {} is {}", i + 1, row[i]);
    sum += row[i];
  }
  if (!(std::fabs(sum - 1.0) <= tolerance)) return fmt::format("sums to {} (|sum - 1| > {})", sum, tolerance);
  return {};
}

void Network::finalize(double row_tolerance) {
  const std::string where = origin.empty() ? std::string("network") : origin;
  auto fail = [&](const std::string& message) { throw GraphError(fmt::format("{}: {}", where, message)); };
  if (variables.empty()) fail("the network has no variables");
  index_.clear();
  const int n = static_cast<int>(variables.size());
  for (int v = 0; v < n; ++v) {
    const Variable& var = variables[v];
    if (var.name.empty()) fail(fmt::format("variable {} has an empty name", v + 1));
    if (!index_.emplace(var.name, v).second) fail(fmt::format("variable '{}' is declared twice", var.name));
    if (var.states.empty()) fail(fmt::format("variable '{}' has no states", var.name));
    std::set<std::string_view> seen;
    for (const auto& s : var.states) {
      if (s.empty()) fail(fmt::format("variable '{}' has an empty state name", var.name));
      if (!seen.insert(s).second) fail(fmt::format("variable '{}' lists state '{}' twice", var.name, s));
    }
  }
  children_.assign(static_cast<std::size_t>(n), {});
  for (int v = 0; v < n; ++v) {
    Variable& var = variables[v];
    std::set<int> seen;
    for (int p : var.parents) {
      if (p < 0 || p >= n) fail(fmt::format("variable '{}' has an invalid parent index {}", var.name, p));
      if (p == v) fail(fmt::format("variable '{}' is its own parent", var.name));
      if (!seen.insert(p).second)
        fail(fmt::format("variable '{}' lists parent '{}' twice", var.name, variables[p].name));
      children_[p].push_back(v);
    }
    if (var.default_state >= static_cast<int>(var.cardinality()))
      fail(fmt::format("variable '{}' has an invalid default state", var.name));
    const std::size_t card = var.cardinality();
    const std::size_t r = rows(v);
    if (var.cpt.size() != r * card)
      fail(fmt::format("variable '{}' has {} probabilities, expected {} ({} rows of {})", var.name,
                       var.cpt.size(), r * card, r, card));
    for (std::size_t row = 0; row < r; ++row) {
      double* p = var.cpt.data() + row * card;
      const std::string problem = check_row(p, card, row_tolerance);
      if (!problem.empty())
        fail(fmt::format("variable '{}', CPT row {} {}: {}", var.name, row + 1, row_label(v, row), problem));
      double sum = 0.0;
      for (std::size_t s = 0; s < card; ++s) sum += p[s];
      for (std::size_t s = 0; s < card; ++s) p[s] /= sum;
    }
  }
  // Kahn's algorithm, smallest index first, so the order is stable.
  std::vector<int> indegree(static_cast<std::size_t>(n));
  for (int v = 0; v < n; ++v) indegree[v] = static_cast<int>(variables[v].parents.size());
  std::priority_queue<int, std::vector<int>, std::greater<>> ready;
  for (int v = 0; v < n; ++v)
    if (indegree[v] == 0) ready.push(v);
  topo_.clear();
  while (!ready.empty()) {
    const int v = ready.top();
    ready.pop();
    topo_.push_back(v);
    for (int c : children_[v])
      if (--indegree[c] == 0) ready.push(c);
  }
  if (static_cast<int>(topo_.size()) != n) {
    std::vector<std::string> cyclic;
    for (int v = 0; v < n; ++v)
      if (indegree[v] > 0) cyclic.push_back(variables[v].name);
    fail(fmt::format("the graph has a directed cycle through {}", fmt::join(cyclic, ", ")));
  }
}

}  // namespace cann_debug::bayes
