// What bayes_exact and bayes_sampling share: the common options, loading the graph, turning evidence/1
// into likelihoods, and a component that answers one posterior/1 (plus one json/1 of figures) per
// evidence message. The engines differ only in how they infer.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/causal_graph/network.hpp"
#include "cann_debug/component.hpp"
#include "cann_debug/messages.hpp"
#include "core/explain.hpp"
#include "core/inference.hpp"

namespace cann_debug::plugins::bayes_detail {

// Option specs shared by the engines (and `graph` by discretize, where it is required: the engines may
// take the graph the evidence names).
enum class GraphOption { kRequired, kFromEvidence };
OptionSpec graph_option(GraphOption which);
OptionSpec roots_option();
OptionSpec top_k_option();
OptionSpec explain_option();
OptionSpec max_clique_option();
std::vector<InputPort> engine_inputs();
std::vector<OutputPort> engine_outputs();

/// Plan-time checks of `graph` (a readable .json or .bif file; empty only for kFromEvidence) and `roots`
/// (non-empty names).
std::vector<ConfigProblem> validate_engine_config(const Config& config, GraphOption which);

/// Variable indices of `names`; throws std::runtime_error with a did-you-mean for an unknown one.
std::vector<int> resolve_variables(const bayes::Network& net, const std::vector<std::string>& names,
                                   const std::string& option);

/// The posterior/1 message of one answer.
Posterior make_posterior(const bayes::Network& net, const bayes::InferenceResult& result,
                         const bayes::Explanation& explanation);

/// "var=state".
std::string state_label(const bayes::Network& net, bayes::StateRef ref);

class EngineComponent : public Component {
 public:
  EngineComponent(const CreateContext& ctx, const Config& config);
  void start() override;
  void process(const Envelope& message, std::size_t port, Emitter& out) override;

 protected:
  /// Called once in start() after the graph is loaded (compile here).
  virtual void prepare(const bayes::Network& net) = 0;
  virtual bayes::InferenceResult infer(const bayes::Likelihoods& evidence) = 0;
  /// Adds engine-specific figures to the json/1 message of one query, right after `result` answered
  /// `evidence` and before the explanations call infer() again.
  virtual void add_figures(nlohmann::json& figures, const bayes::Likelihoods& evidence,
                           const bayes::InferenceResult& result) = 0;
  virtual std::string engine_name() const = 0;

  HostServices& host() { return *host_; }
  const Config& config() const { return config_; }
  const bayes::Network& network() const { return *net_; }

 private:
  HostServices* host_;
  std::string id_;
  Config config_;
  void load(const std::string& path);

  std::unique_ptr<bayes::Network> net_;
  std::string graph_path_;  // where net_ was loaded from
  std::vector<int> defaults_;
  bayes::ExplainOptions explain_options_;
  bool explain_ = true;
};

}  // namespace cann_debug::plugins::bayes_detail
