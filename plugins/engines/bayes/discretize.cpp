// discretize: features -> evidence through the `discretization` specs that a causal graph's variables carry.
#include "discretize.hpp"

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <stdexcept>

#include <fmt/format.h>

#include "cann_debug/causal_graph/graph_loader.hpp"
#include "cann_debug/messages.hpp"
#include "core/discretization.hpp"
#include "engine_common.hpp"
#include "graph_extensions.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;

Manifest discretize_manifest() {
  Manifest m;
  m.type = "discretize";
  m.kind = ComponentKind::kExtractor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Turns features into evidence/1 through the discretization specs of a causal graph's variables.";
  m.inputs = {{"features", {std::string(FeatureSet::type_id)}, true, "features to discretise"}};
  m.outputs = {{"evidence", std::string(Evidence::type_id), "observations of the graph's variables"}};
  m.options = {bayes_detail::graph_option(bayes_detail::GraphOption::kRequired),
               {.name = "emit",
                .type = OptionType::kEnum,
                .description =
                    "on_flush: one evidence message at end of stream; every_set: one after each feature set",
                .default_value = "on_flush",
                .enum_values = {"on_flush", "every_set"}}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Evidence for the training graph from extracted features.\n"
      "discretize/training:\n"
      "  graph: ${CANN_DEBUG_GRAPHS}/training.json\n"
      "  emit: on_flush\n";
  return m;
}

bool labels_match(const std::map<std::string, std::string>& wanted, const Labels& have) {
  for (const auto& [k, v] : wanted) {
    auto it = have.find(k);
    if (it == have.end() || it->second != v) return false;
  }
  return true;
}

class Discretize final : public Component {
 public:
  Discretize(const CreateContext& ctx, const Config& config)
      : host_(ctx.host), path_(config.str("graph")), every_set_(config.str("emit") == "every_set") {}

  void start() override {
    if (net_) return;
    net_ = std::make_unique<bayes::Network>(bayes::load_graph(path_));
    const std::set<std::string> context =
        bayes_detail::context_variables(bayes_detail::variable_extensions(path_));
    for (std::size_t v = 0; v < net_->size(); ++v) {
      if (net_->variables[v].discretization) specs_.push_back(static_cast<int>(v));
      if (context.contains(net_->variables[v].name)) context_.insert(static_cast<int>(v));
    }
    if (specs_.empty())
      throw std::runtime_error(
          fmt::format("graph '{}' ({}) has no variable with a 'discretization' spec, so no feature "
                      "can become evidence",
                      net_->display_name(), path_));
  }

  void process(const Envelope& message, std::size_t /*port*/, Emitter& out) override {
    if (!net_) start();
    const FeatureSet& set = message.as<FeatureSet>();
    received_ = true;
    key_ = message.key();
    for (const Feature& f : set.features)
      for (int v : specs_) {
        const bayes::Variable& var = net_->variables[static_cast<std::size_t>(v)];
        const bayes::Discretization& spec = *var.discretization;
        if (f.name != spec.feature || !labels_match(spec.labels, f.labels)) continue;
        auto reading = bayes::discretize(var, spec, f.value);
        if (!reading) {
          host_.logger().debug("{}: non-finite value of '{}' ignored (no nonfinite_state)", var.name, f.name);
          continue;
        }
        current_[v] = {std::move(*reading), f.evidence};
      }
    if (every_set_) out.emit(0, key_, evidence());
  }

  void flush(Emitter& out) override {
    if (!every_set_ && received_) out.emit(0, key_, evidence());
  }

 private:
  struct Reading {
    bayes::Discretized value;
    std::vector<EvidenceRef> provenance;
  };

  Evidence evidence() const {
    Evidence e;
    e.graph = path_;  // an engine with no `graph` of its own answers on this one
    // A variable whose feature never came is observed in its absent_state when the graph names one.
    for (int v : specs_) {
      const bayes::Variable& var = net_->variables[static_cast<std::size_t>(v)];
      if (var.discretization->absent_state >= 0 && !current_.contains(v))
        e.hard[var.name] = var.states[static_cast<std::size_t>(var.discretization->absent_state)];
    }
    // A context variable (how the run was set up) weighs the symptoms; with none observed it would be the
    // verdict by itself, so it is left out then.
    const bool symptom_observed = std::any_of(
        current_.begin(), current_.end(), [&](const auto& entry) { return !context_.contains(entry.first); });
    for (const auto& [v, r] : current_) {
      const bayes::Variable& var = net_->variables[static_cast<std::size_t>(v)];
      if (!symptom_observed && context_.contains(v)) {
        host_.logger().info(
            "{}: not used as evidence: the input shows no symptom to weigh a configured value against",
            var.name);
        continue;
      }
      if (r.value.hard_state >= 0) {
        e.hard[var.name] = var.states[static_cast<std::size_t>(r.value.hard_state)];
      } else {
        auto& soft = e.soft[var.name];
        for (std::size_t s = 0; s < var.cardinality(); ++s) soft[var.states[s]] = r.value.soft[s];
      }
      if (!r.provenance.empty()) e.provenance[var.name] = r.provenance;
    }
    return e;
  }

  HostServices& host_;
  std::string path_;
  bool every_set_;
  std::unique_ptr<bayes::Network> net_;
  std::vector<int> specs_;
  std::set<int> context_;  // variables marked "_context" in the graph
  std::map<int, Reading> current_;
  bool received_ = false;
  CorrelationKey key_;
};

class DiscretizeFactory final : public SimpleFactory<Discretize> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    return bayes_detail::validate_engine_config(config, bayes_detail::GraphOption::kRequired);
  }
};

}  // namespace

const ComponentFactory& discretize_factory() {
  static const DiscretizeFactory factory(discretize_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
