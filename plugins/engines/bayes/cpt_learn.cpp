// cpt_learn: Dirichlet-smoothed soft counts over labelled cases, leave-one-out figures, the learnt graph
// written as JSON with a note of how it was made.
#include "cpt_learn.hpp"

#include <fstream>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cann_debug/causal_graph/graph_loader.hpp"
#include "cann_debug/causal_graph/json_graph.hpp"
#include "cann_debug/messages.hpp"
#include "core/evidence.hpp"
#include "core/learning.hpp"
#include "engine_common.hpp"
#include "graph_extensions.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;

Manifest cpt_learn_manifest() {
  Manifest m;
  m.type = "cpt_learn";
  m.kind = ComponentKind::kAnalyzer;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description =
      "Learns a causal graph's CPTs from labelled evidence/1 cases (Dirichlet-smoothed soft counts).";
  m.inputs = {{"evidence", {std::string(Evidence::type_id)}, true, "one labelled case per message"}};
  m.outputs = {{"stats", std::string(JsonMessage::type_id), "learning and leave-one-out figures"}};
  m.options = {
      bayes_detail::graph_option(bayes_detail::GraphOption::kRequired),
      {.name = "output",
       .type = OptionType::kString,
       .description = "where to write the learnt graph (.json)",
       .required = true},
      {.name = "label",
       .type = OptionType::kString,
       .description = "the variable that holds each case's label",
       .default_value = "root_cause"},
      {.name = "prior_strength",
       .type = OptionType::kDouble,
       .description = "Dirichlet prior weight per table row, in cases",
       .default_value = 2.0,
       .min = 0.0,
       .max = 1e6},
      {.name = "learn_label_prior",
       .type = OptionType::kBool,
       .description = "also learn the label variable's own table from the label counts (default: keep the "
                      "graph's; a curated case set says how it was assembled, not how often causes occur)",
       .default_value = false},
      {.name = "note",
       .type = OptionType::kString,
       .description = "recorded in the output's _learned.note (e.g. the command and cases used)",
       .default_value = ""}};
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "cpt_learn/training:\n"
      "  graph: pipelines/graphs/training.json\n"
      "  output: out/training.json\n"
      "  label: root_cause\n"
      "  prior_strength: 2.0\n";
  return m;
}

class CptLearn final : public Component {
 public:
  CptLearn(const CreateContext&, const Config& config)
      : graph_path_(config.str("graph")),
        output_(config.str("output")),
        label_name_(config.str("label")),
        note_(config.str("note")),
        learn_label_prior_(config.boolean("learn_label_prior")) {
    options_.prior_strength = config.number("prior_strength");
  }

  void start() override {
    prior_ = bayes::load_graph(graph_path_);
    label_ = bayes_detail::resolve_variables(prior_, {label_name_}, "label").front();
    if (!learn_label_prior_) options_.keep.push_back(label_);
    for (std::size_t v = 0; v < prior_.size(); ++v) {
      const auto& var = prior_.variables[v];
      if (!var.learn) options_.keep.push_back(static_cast<int>(v));
      if (var.from_label && var.from_label->label != label_)
        throw std::runtime_error(
            fmt::format("'{}' is read off '{}', but the label of this learning is '{}'", var.name,
                        prior_.variables[static_cast<std::size_t>(var.from_label->label)].name, label_name_));
    }
  }

  void process(const Envelope& message, std::size_t, Emitter&) override {
    const auto& e = message.as<Evidence>();
    if (!e.hard.contains(label_name_))
      throw std::runtime_error(
          fmt::format("case {}: no label: expected hard evidence on '{}'", cases_.size() + 1, label_name_));
    cases_.push_back(bayes::make_likelihoods(prior_, e.hard, e.soft));
    bayes::read_off_label(prior_, label_, cases_.back());
  }

  void flush(Emitter& out) override {
    if (cases_.empty()) throw std::runtime_error("no labelled case arrived: nothing to learn from");
    bayes::Counts counts = bayes::empty_counts(prior_);
    std::map<std::string, int> label_counts;
    const auto& label_var = prior_.variables[static_cast<std::size_t>(label_)];
    for (const auto& c : cases_) {
      bayes::add_case(prior_, c, counts);
      ++label_counts[label_var.states[static_cast<std::size_t>(c.strongest_state(label_))]];
    }
    const bayes::Network learnt = bayes::with_learnt_tables(prior_, counts, options_);
    const bayes::LeaveOneOut loo = bayes::leave_one_out(prior_, cases_, label_, options_);

    json confusion = json::object();
    for (std::size_t i = 0; i < loo.labels.size(); ++i) {
      const auto& post = loo.label_posteriors[i];
      std::size_t best = 0;
      for (std::size_t s = 1; s < post.size(); ++s)
        if (post[s] > post[best]) best = s;
      const auto& truth = label_var.states[static_cast<std::size_t>(loo.labels[i])];
      json& row = confusion[truth];
      if (!row.is_object()) row = json::object();
      row[label_var.states[best]] = row.value(label_var.states[best], 0) + 1;
    }
    json stats = {{"graph", learnt.display_name()},
                  {"output", output_},
                  {"cases", cases_.size()},
                  {"labels", label_counts},
                  {"prior_strength", options_.prior_strength},
                  {"label_prior", learn_label_prior_ ? "learnt" : "kept from the graph"},
                  {"leave_one_out",
                   {{"cases", loo.cases},
                    {"mean_log_likelihood", loo.mean_log_likelihood},
                    {"mean_log_p_label", loo.mean_log_label},
                    {"top1_accuracy", loo.top1_accuracy},
                    {"top3_accuracy", loo.top3_accuracy},
                    {"confusion", confusion}}}};

    json doc = bayes::to_json_graph(learnt);
    bayes_detail::add_variable_extensions(doc, bayes_detail::variable_extensions(graph_path_));
    doc["_learned"] = {{"method", "Dirichlet-smoothed soft counts (docs/bayes.md, Learning the tables)"},
                       {"note", note_},
                       {"cases", cases_.size()},
                       {"labels", label_counts},
                       {"prior_strength", options_.prior_strength},
                       {"leave_one_out", stats["leave_one_out"]}};
    std::ofstream file(output_);
    if (!file) throw std::runtime_error(output_ + ": cannot write the learnt graph");
    file << doc.dump(1) << '\n';
    if (!file) throw std::runtime_error(output_ + ": write failed");
    out.emit(0, CorrelationKey{}, JsonMessage{std::move(stats)});
  }

 private:
  std::string graph_path_, output_, label_name_, note_;
  bool learn_label_prior_ = false;
  bayes::LearnOptions options_;
  bayes::Network prior_;
  int label_ = -1;
  std::vector<bayes::Likelihoods> cases_;
};

}  // namespace

const ComponentFactory& cpt_learn_factory() {
  static const SimpleFactory<CptLearn> factory(cpt_learn_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
