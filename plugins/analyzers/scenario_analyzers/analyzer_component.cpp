#include "analyzer_component.hpp"

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cann_debug/messages.hpp"
#include "details.hpp"
#include "ranked_causes.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;
using scenario::FeatureIndex;

using DetailsFn = json (*)(const FeatureIndex&, const Posterior&);

struct ScenarioSpec {
  const char* type;
  const char* scenario;
  const char* what;
  DetailsFn details;
};

Manifest make_manifest(const ScenarioSpec& spec) {
  Manifest m;
  m.type = spec.type;
  m.kind = ComponentKind::kAnalyzer;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = fmt::format(
      "Ranks the root causes of a {} run from the engine's posterior into one diagnosis/1.", spec.scenario);
  m.inputs = {
      {"posterior", {std::string(Posterior::type_id)}, true, "the engine's answer (the last one counts)"},
      {"features", {std::string(FeatureSet::type_id)}, false, "the run's features"},
      {"evidence", {std::string(Evidence::type_id)}, false, "the discretised evidence (provenance)"}};
  m.outputs = {{"diagnosis", std::string(Diagnosis::type_id), "one diagnosis at end of stream"}};
  m.options = {
      {.name = "root",
       .type = OptionType::kString,
       .description = "the root-cause variable",
       .default_value = "root_cause"},
      {.name = "healthy_state",
       .type = OptionType::kString,
       .description = "the root variable's 'nothing wrong' state",
       .default_value = "healthy"},
      {.name = "min_confidence",
       .type = OptionType::kDouble,
       .description = "causes less probable than this are not listed (the most probable always is)",
       .default_value = 0.05,
       .min = 0.0,
       .max = 1.0},
      {.name = "max_causes",
       .type = OptionType::kInt,
       .description = "at most this many ranked answers",
       .default_value = 3,
       .min = 1,
       .max = 100},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml = fmt::format(
      "{}/diagnosis:\n"
      "  root: root_cause\n"
      "  min_confidence: 0.05\n"
      "  max_causes: 3\n",
      spec.type);
  return m;
}

class ScenarioAnalyzer final : public Component {
 public:
  ScenarioAnalyzer(const ScenarioSpec& spec, const Config& config) : spec_(spec) {
    options_.root = config.str("root");
    options_.healthy_state = config.str("healthy_state");
    options_.min_confidence = config.number("min_confidence");
    options_.max_causes = static_cast<std::size_t>(config.integer("max_causes"));
  }

  void process(const Envelope& message, std::size_t port, Emitter&) override {
    switch (port) {
      case 0:
        posterior_ = message.as<Posterior>();
        break;
      case 1:
        for (const auto& f : message.as<FeatureSet>().features) features_.all.push_back(f);
        break;
      default:
        evidence_ = message.as<Evidence>();
        break;
    }
  }

  void flush(Emitter& out) override {
    if (!posterior_) return;  // nothing reached the engine: no diagnosis rather than a made-up one
    Diagnosis d;
    d.scenario = spec_.scenario;
    if (evidence_ && evidence_->hard.empty() && evidence_->soft.empty()) {
      // The engine answered with its prior alone: no input held anything the graph observes. Saying
      // "healthy" (or any cause) here would be made up.
      d.healthy = false;
      d.details = {{"error",
                    "no evidence: none of the features the causal graph reads could be computed from "
                    "the inputs (are the run's logs or traces in the input folder?)"},
                   {"graph", posterior_->graph}};
      out.emit(0, CorrelationKey{}, std::move(d));
      return;
    }
    if (!posterior_->marginals.contains(options_.root)) {
      // The `root` option names no variable the engine answered for: ranking nothing would read as
      // "healthy".
      std::vector<std::string> variables;
      for (const auto& [name, states] : posterior_->marginals) variables.push_back(name);
      d.healthy = false;
      d.details = {
          {"error", fmt::format("the posterior has no variable '{}' (the analyzer's `root` option); it "
                                "has: {}",
                                options_.root, fmt::join(variables, ", "))},
          {"graph", posterior_->graph}};
      out.emit(0, CorrelationKey{}, std::move(d));
      return;
    }
    d.root_causes =
        scenario::rank_causes(*posterior_, evidence_ ? &*evidence_ : nullptr, features_, options_);
    d.healthy = d.root_causes.empty() || d.root_causes.front().id == options_.healthy_state;
    d.details = spec_.details(features_, *posterior_);
    d.details["graph"] = posterior_->graph;
    if (evidence_ && !scenario::symptom_observed(*posterior_, *evidence_, features_)) {
      // Only variables observed as unmeasured (their feature never came): the ranking is the graph's prior,
      // which must not read as a verdict, healthy or not.
      d.healthy = false;
      d.details["undetermined"] = fmt::format(
          "the input holds none of the signals the {} graph reads (only what it could not measure): the "
          "ranking is the graph's prior, not a diagnosis",
          spec_.scenario);
    }
    out.emit(0, CorrelationKey{}, std::move(d));
  }

 private:
  ScenarioSpec spec_;
  scenario::RankingOptions options_;
  std::optional<Posterior> posterior_;
  std::optional<Evidence> evidence_;
  FeatureIndex features_;
};

class ScenarioAnalyzerFactory final : public ComponentFactory {
 public:
  explicit ScenarioAnalyzerFactory(ScenarioSpec spec) : spec_(spec), manifest_(make_manifest(spec)) {}
  const Manifest& manifest() const override { return manifest_; }
  std::unique_ptr<Component> create(const CreateContext&, const Config& config) const override {
    return std::make_unique<ScenarioAnalyzer>(spec_, config);
  }

 private:
  ScenarioSpec spec_;
  Manifest manifest_;
};

}  // namespace

const ComponentFactory& training_analyzer_factory() {
  static const ScenarioAnalyzerFactory f({"training_analyzer", "training",
                                          "gradient flow (loss and gradient-norm figures, per-layer norms, "
                                          "the steps where anomalies sit)",
                                          &scenario::training_details});
  return f;
}

const ComponentFactory& inference_analyzer_factory() {
  static const ScenarioAnalyzerFactory f({"inference_analyzer", "inference",
                                          "operator bottlenecks (latency percentiles and spike windows, top "
                                          "operators, request time split, CPU contention)",
                                          &scenario::inference_details});
  return f;
}

const ComponentFactory& distributed_analyzer_factory() {
  static const ScenarioAnalyzerFactory f(
      {"distributed_analyzer", "distributed",
       "topology-aware communication (per-rank step split, which rank held "
       "the others up and how long they waited, per-link bandwidth)",
       &scenario::distributed_details});
  return f;
}

}  // namespace cann_debug::plugins
