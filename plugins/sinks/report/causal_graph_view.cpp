#include "causal_graph_view.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <stdexcept>

#include <fmt/format.h>

namespace cann_debug::report {
namespace {

void assign_layers(CausalGraphView& g) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) index[g.nodes[i].name] = i;
  for (std::size_t i = 0; i < g.nodes.size(); ++i)
    for (const auto& p : g.nodes[i].parents) {
      auto it = index.find(p);
      if (it == index.end())
        throw std::runtime_error(
            fmt::format("graph '{}': variable '{}' has an unknown parent '{}'", g.name, g.nodes[i].name, p));
      g.edges.emplace_back(it->second, i);
    }
  enum class Mark { kNew, kActive, kDone };
  std::vector<Mark> mark(g.nodes.size(), Mark::kNew);
  std::function<int(std::size_t)> layer = [&](std::size_t i) -> int {
    if (mark[i] == Mark::kDone) return g.nodes[i].layer;
    if (mark[i] == Mark::kActive)
      throw std::runtime_error(
          fmt::format("graph '{}': the parents of '{}' form a cycle", g.name, g.nodes[i].name));
    mark[i] = Mark::kActive;
    int depth = 0;
    for (const auto& p : g.nodes[i].parents) depth = std::max(depth, layer(index.at(p)) + 1);
    g.nodes[i].layer = depth;
    mark[i] = Mark::kDone;
    return depth;
  };
  for (std::size_t i = 0; i < g.nodes.size(); ++i) layer(i);
}

}  // namespace

std::optional<CausalGraphView> causal_graph_view(const Posterior& posterior) {
  if (posterior.variables.empty()) return std::nullopt;
  CausalGraphView g;
  g.name = posterior.graph;
  for (const auto& v : posterior.variables)
    g.nodes.push_back(
        GraphNode{.name = v.name, .description = v.description, .states = v.states, .parents = v.parents});
  assign_layers(g);
  return g;
}

void annotate_causal_graph(CausalGraphView& graph, const std::optional<Diagnosis>& diagnosis,
                           const std::optional<Posterior>& posterior,
                           const std::optional<Evidence>& evidence) {
  std::map<std::string, std::size_t> index;
  for (std::size_t i = 0; i < graph.nodes.size(); ++i) index[graph.nodes[i].name] = i;
  for (auto& node : graph.nodes) {
    if (evidence) {
      auto it = evidence->hard.find(node.name);
      if (it != evidence->hard.end()) node.observed_state = it->second;
    }
    if (posterior) {
      auto it = posterior->marginals.find(node.name);
      if (it != posterior->marginals.end())
        for (const auto& [state, p] : it->second)
          if (node.likeliest_state.empty() || p > node.likeliest_probability) {
            node.likeliest_state = state;
            node.likeliest_probability = p;
          }
    }
  }
  const std::vector<std::string>* path = nullptr;
  if (diagnosis && !diagnosis->root_causes.empty()) {
    path = &diagnosis->root_causes.front().path;
    graph.path_cause = diagnosis->root_causes.front().id;
  } else if (posterior && !posterior->top_causes.empty()) {
    path = &posterior->top_causes.front().path;
    graph.path_cause = posterior->top_causes.front().id;
  }
  if (!path) return;
  std::vector<std::size_t> on_path;
  for (const auto& entry : *path) {
    const auto eq = entry.find('=');
    auto it = index.find(entry.substr(0, eq));
    if (it == index.end()) continue;
    graph.nodes[it->second].on_path = true;
    graph.nodes[it->second].path_state = eq == std::string::npos ? "" : entry.substr(eq + 1);
    on_path.push_back(it->second);
  }
  for (std::size_t k = 1; k < on_path.size(); ++k)
    for (const auto& edge : graph.edges)
      if (edge.first == on_path[k - 1] && edge.second == on_path[k]) graph.path_edges.push_back(edge);
}

}  // namespace cann_debug::report
