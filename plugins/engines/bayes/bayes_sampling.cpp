// bayes_sampling: likelihood-weighting inference on a causal graph, one posterior per evidence message,
// with its error against the exact engine where that one fits within max_clique_entries.
#include "bayes_sampling.hpp"

#include <memory>

#include "core/errors.hpp"
#include "core/junction_tree.hpp"
#include "core/sampling.hpp"
#include "engine_common.hpp"

namespace cann_debug::plugins {
namespace {

using namespace bayes_detail;
using nlohmann::json;

Manifest bayes_sampling_manifest() {
  Manifest m;
  m.type = "bayes_sampling";
  m.kind = ComponentKind::kEngine;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Likelihood-weighting inference on a discrete Bayesian network: one posterior/1 per evidence/1.";
  m.inputs = engine_inputs();
  m.outputs = engine_outputs();
  m.options = {graph_option(GraphOption::kFromEvidence),
               {.name = "samples",
                .type = OptionType::kInt,
                .description = "weighted samples per inference",
                .default_value = 100000,
                .min = 1,
                .max = 1e9},
               {.name = "seed",
                .type = OptionType::kInt,
                .description = "random seed (every inference restarts from it)",
                .default_value = 1,
                .min = 0},
               roots_option(),
               top_k_option(),
               explain_option(),
               {.name = "compare_exact",
                .type = OptionType::kBool,
                .description = "also run exact inference when it fits, and report max_abs_error_vs_exact",
                .default_value = true},
               max_clique_option()};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Likelihood weighting on a large graph.\n"
      "bayes_sampling/causal:\n"
      "  graph: ${CANN_DEBUG_GRAPHS}/cluster.bif\n"
      "  samples: 100000\n"
      "  seed: 7\n"
      "  top_k: 3\n";
  return m;
}

class BayesSampling final : public EngineComponent {
 public:
  using EngineComponent::EngineComponent;

 private:
  void prepare(const bayes::Network& net) override {
    options_.samples = static_cast<std::size_t>(config().integer("samples"));
    options_.seed = static_cast<std::uint64_t>(config().integer("seed"));
    if (!config().boolean("compare_exact")) {
      exact_note_ = "compare_exact is off";
      return;
    }
    try {
      bayes::CompileOptions compile;
      compile.max_clique_entries = static_cast<double>(config().integer("max_clique_entries"));
      exact_ = std::make_unique<bayes::JunctionTree>(net, compile);
    } catch (const bayes::TooLargeError& e) {
      exact_note_ = e.what();
      host().logger().info("no exact comparison: {}", exact_note_);
    }
  }
  bayes::InferenceResult infer(const bayes::Likelihoods& evidence) override {
    last_ = bayes::likelihood_weighting(network(), evidence, options_);
    return last_;
  }
  void add_figures(json& figures, const bayes::Likelihoods& evidence,
                   const bayes::InferenceResult& result) override {
    const bayes::SamplingResult& answer = last_;  // the run that produced `result`
    figures["samples"] = options_.samples;
    figures["seed"] = options_.seed;
    figures["effective_sample_size"] = answer.effective_sample_size;
    if (exact_) {
      const bayes::InferenceResult exact = exact_->query(evidence);
      const double error = bayes::max_abs_difference(result, exact);
      figures["max_abs_error_vs_exact"] = error;
      figures["exact_log_p_evidence"] = exact.log_p_evidence;
      host().logger().info(
          "likelihood weighting on '{}': max abs error vs exact {:.3g} ({} samples, ESS {:.0f})",
          network().display_name(), error, options_.samples, answer.effective_sample_size);
    } else {
      figures["max_abs_error_vs_exact"] = nullptr;
      figures["exact_unavailable"] = exact_note_;
    }
  }
  std::string engine_name() const override { return "likelihood_weighting"; }

  bayes::SamplingOptions options_;
  std::unique_ptr<bayes::JunctionTree> exact_;
  std::string exact_note_;
  bayes::SamplingResult last_;
};

class BayesSamplingFactory final : public SimpleFactory<BayesSampling> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    return validate_engine_config(config, GraphOption::kFromEvidence);
  }
};

}  // namespace

const ComponentFactory& bayes_sampling_factory() {
  static const BayesSamplingFactory factory(bayes_sampling_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
