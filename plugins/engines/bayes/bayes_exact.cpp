// bayes_exact: junction-tree inference on a causal graph, one posterior per evidence message.
#include "bayes_exact.hpp"

#include <memory>

#include "core/junction_tree.hpp"
#include "engine_common.hpp"

namespace cann_debug::plugins {
namespace {

using namespace bayes_detail;

Manifest bayes_exact_manifest() {
  Manifest m;
  m.type = "bayes_exact";
  m.kind = ComponentKind::kEngine;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Exact junction-tree inference on a discrete Bayesian network: one posterior/1 per evidence/1.";
  m.inputs = engine_inputs();
  m.outputs = engine_outputs();
  m.options = {graph_option(GraphOption::kFromEvidence), roots_option(), top_k_option(), max_clique_option(),
               explain_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Posteriors of the training causal graph for each evidence message.\n"
      "bayes_exact/causal:\n"
      "  graph: ${CANN_DEBUG_GRAPHS}/training.json  # omit: the graph the evidence names\n"
      "  roots: []                  # empty = parentless variables\n"
      "  top_k: 3\n"
      "  max_clique_entries: 4194304\n";
  return m;
}

class BayesExact final : public EngineComponent {
 public:
  using EngineComponent::EngineComponent;

 private:
  void prepare(const bayes::Network& net) override {
    bayes::CompileOptions options;
    options.max_clique_entries = static_cast<double>(config().integer("max_clique_entries"));
    tree_ = std::make_unique<bayes::JunctionTree>(net, options);
    const auto& s = tree_->stats();
    host().logger().info(
        "junction tree of '{}': {} cliques, largest {} entries ({} variables), {} entries in all ({})",
        net.display_name(), s.cliques, s.max_clique_entries, s.max_clique_variables, s.total_entries,
        s.heuristic);
  }
  bayes::InferenceResult infer(const bayes::Likelihoods& evidence) override { return tree_->query(evidence); }
  void add_figures(nlohmann::json& figures, const bayes::Likelihoods&,
                   const bayes::InferenceResult&) override {
    const auto& s = tree_->stats();
    figures["junction_tree"] = {{"cliques", s.cliques},
                                {"max_clique_entries", s.max_clique_entries},
                                {"max_clique_variables", s.max_clique_variables},
                                {"total_entries", s.total_entries},
                                {"heuristic", s.heuristic}};
  }
  std::string engine_name() const override { return "junction_tree"; }

  std::unique_ptr<bayes::JunctionTree> tree_;
};

class BayesExactFactory final : public SimpleFactory<BayesExact> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    return validate_engine_config(config, GraphOption::kFromEvidence);
  }
};

}  // namespace

const ComponentFactory& bayes_exact_factory() {
  static const BayesExactFactory factory(bayes_exact_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
