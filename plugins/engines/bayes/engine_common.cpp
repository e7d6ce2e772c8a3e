#include "engine_common.hpp"

#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <stdexcept>

#include <fmt/format.h>

#include "cann_debug/causal_graph/graph_loader.hpp"
#include "cann_debug/causal_graph/graph_variables.hpp"
#include "core/evidence.hpp"
#include "core/junction_tree.hpp"

namespace cann_debug::plugins::bayes_detail {

using nlohmann::json;

OptionSpec graph_option(GraphOption which) {
  if (which == GraphOption::kRequired)
    return {
        .name = "graph",
        .type = OptionType::kString,
        .description = "causal graph file: .json (cann-debug graph, see docs/bayes.md) or .bif (BIF 0.15)",
        .required = true};
  return {.name = "graph",
          .type = OptionType::kString,
          .description =
              "causal graph file (.json or .bif); empty = the graph the evidence names (the one its "
              "discretizer read)",
          .default_value = ""};
}

OptionSpec roots_option() {
  return {.name = "roots",
          .type = OptionType::kStringList,
          .description = "candidate root-cause variables (empty = every variable without parents)",
          .default_value = json::array()};
}

OptionSpec top_k_option() {
  return {.name = "top_k",
          .type = OptionType::kInt,
          .description = "number of ranked causes (non-default root states) in top_causes",
          .default_value = 3,
          .min = 0,
          .max = 1000};
}

OptionSpec explain_option() {
  return {.name = "explain",
          .type = OptionType::kBool,
          .description =
              "compute propagation paths and the evidence ranking (1 + top_k + |evidence| inferences "
              "per query instead of 1)",
          .default_value = true};
}

OptionSpec max_clique_option() {
  return {.name = "max_clique_entries",
          .type = OptionType::kInt,
          .description =
              "largest clique table exact inference may build (entries, 8 bytes each); a graph "
              "needing more is refused with its clique size",
          .default_value = static_cast<std::int64_t>(bayes::kDefaultMaxCliqueEntries),
          .min = 1,
          .max = 4.0e9};
}

std::vector<InputPort> engine_inputs() {
  return {
      {"evidence", {std::string(Evidence::type_id)}, true, "observations: hard states and soft likelihoods"}};
}

std::vector<OutputPort> engine_outputs() {
  return {{"posterior", std::string(Posterior::type_id),
           "one per evidence message: every marginal, top causes with paths, evidence ranking"},
          {"stats", std::string(JsonMessage::type_id),
           "one per evidence message: log P(evidence), inference counts and engine figures"}};
}

std::vector<ConfigProblem> validate_engine_config(const Config& config, GraphOption which) {
  std::vector<ConfigProblem> problems;
  const std::string path = config.has("graph") ? config.str("graph") : std::string();
  std::string ext = std::filesystem::path(path).extension().string();
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::error_code ec;
  if (path.empty()) {
    if (which == GraphOption::kRequired) problems.push_back({"graph", "empty path"});
  } else if (ext != ".json" && ext != ".bif") {
    problems.push_back({"graph", fmt::format("expected a .json or .bif file, got '{}'", path)});
  } else if (!std::filesystem::is_regular_file(path, ec)) {
    problems.push_back({"graph", fmt::format("no such file '{}'", path)});
  }
  if (config.has("roots"))
    for (const auto& r : config.strings("roots"))
      if (r.empty()) problems.push_back({"roots", "an empty variable name"});
  return problems;
}

std::vector<int> resolve_variables(const bayes::Network& net, const std::vector<std::string>& names,
                                   const std::string& option) {
  std::vector<std::string> all;
  for (const auto& v : net.variables) all.push_back(v.name);
  std::vector<int> out;
  for (const auto& name : names) {
    const int v = net.find(name);
    if (v < 0) {
      const std::string hint = closest_match(name, all);
      throw std::runtime_error(fmt::format("{}: graph '{}' has no variable '{}'{}", option,
                                           net.display_name(), name,
                                           hint.empty() ? "" : fmt::format(" (did you mean '{}'?)", hint)));
    }
    out.push_back(v);
  }
  return out;
}

std::string state_label(const bayes::Network& net, bayes::StateRef ref) {
  const auto& var = net.variables[static_cast<std::size_t>(ref.variable)];
  return var.name + "=" + var.states[static_cast<std::size_t>(ref.state)];
}

Posterior make_posterior(const bayes::Network& net, const bayes::InferenceResult& result,
                         const bayes::Explanation& explanation) {
  Posterior p;
  p.graph = net.display_name();
  p.variables = bayes::graph_variables(net);
  for (std::size_t v = 0; v < net.size(); ++v) {
    auto& m = p.marginals[net.variables[v].name];
    for (std::size_t s = 0; s < net.variables[v].cardinality(); ++s)
      m[net.variables[v].states[s]] = result.marginals[v][s];
  }
  for (const auto& c : explanation.causes) {
    RankedCause rc;
    rc.id = state_label(net, c.cause);
    rc.probability = c.probability;
    for (const auto& step : c.path) rc.path.push_back(state_label(net, step));
    p.top_causes.push_back(std::move(rc));
  }
  for (const auto& e : explanation.influence)
    p.evidence_ranking.emplace_back(net.variables[static_cast<std::size_t>(e.variable)].name, e.log_ratio);
  return p;
}

EngineComponent::EngineComponent(const CreateContext& ctx, const Config& config)
    : host_(&ctx.host), id_(ctx.id), config_(config) {
  explain_options_.top_k = static_cast<std::size_t>(config.integer("top_k"));
  explain_ = config.boolean("explain");
  explain_options_.paths = explain_options_.evidence_ranking = explain_;
}

void EngineComponent::start() {
  if (net_) return;
  // With no `graph` option the graph comes with the first evidence message (see process()).
  if (const std::string path = config_.str("graph"); !path.empty()) load(path);
}

void EngineComponent::load(const std::string& path) {
  auto net = std::make_unique<bayes::Network>(bayes::load_graph(path));
  explain_options_.roots = resolve_variables(*net, config_.strings("roots"), "roots");
  net_ = std::move(net);
  graph_path_ = path;
  prepare(*net_);
  defaults_ = bayes::default_states(*net_, infer(bayes::Likelihoods(net_->size())));
  host_->logger().info("{}: graph '{}' ({} variables) ready", id_, net_->display_name(), net_->size());
}

void EngineComponent::process(const Envelope& message, std::size_t /*port*/, Emitter& out) {
  const Evidence& evidence = message.as<Evidence>();
  const bool own_graph = !config_.str("graph").empty();
  if (!net_) {
    if (own_graph)
      load(config_.str("graph"));
    else if (!evidence.graph.empty())
      load(evidence.graph);
    else
      throw std::runtime_error(
          "no causal graph: the `graph` option is empty and the evidence names none (feed the engine from "
          "a discretizer, which names the graph it read, or set `graph`)");
  } else if (!own_graph && !evidence.graph.empty() && evidence.graph != graph_path_) {
    throw std::runtime_error(fmt::format(
        "the evidence names graph '{}' but this engine answers on '{}' (the graph of its first evidence); "
        "set `graph` to answer every message on one graph",
        evidence.graph, graph_path_));
  }
  const auto t0 = std::chrono::steady_clock::now();
  const bayes::Likelihoods likelihoods = bayes::make_likelihoods(*net_, evidence.hard, evidence.soft);
  const bayes::InferenceResult result = infer(likelihoods);
  json figures = {{"graph", net_->display_name()},
                  {"engine", engine_name()},
                  {"log_p_evidence", result.log_p_evidence},
                  {"p_evidence", std::exp(result.log_p_evidence)},
                  {"evidence_variables", likelihoods.observed_variables().size()}};
  add_figures(figures, likelihoods, result);  // before the explanations run the engine again
  bayes::Explanation explanation = bayes::explain(
      *net_, defaults_, [this](const bayes::Likelihoods& l) { return infer(l); }, likelihoods, result,
      explain_options_);
  figures["inferences"] = 1 + explanation.propagations;
  figures["elapsed_ms"] =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  out.emit(0, message.key(), make_posterior(*net_, result, explanation));
  out.emit(1, message.key(), JsonMessage{std::move(figures)});
}

}  // namespace cann_debug::plugins::bayes_detail
