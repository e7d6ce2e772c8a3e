// kb_advisor component: collects diagnoses, features and the run's config, and at end of stream emits the
// advice for each diagnosis: one Advice per root cause answered, most likely first.
#include "kb_advisor.hpp"

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "advice_builder.hpp"
#include "cann_debug/kb_outcomes.hpp"
#include "cann_debug/messages.hpp"
#include "knowledge_base.hpp"

namespace cann_debug::plugins {
namespace {

using nlohmann::json;

constexpr std::size_t kDiagnosisPort = 0;
constexpr std::size_t kFeaturesPort = 1;
constexpr std::size_t kConfigPort = 2;

Manifest make_manifest() {
  Manifest m;
  m.type = "kb_advisor";
  m.kind = ComponentKind::kAdvisor;
  m.version = "0.1.0";
  m.stability = Stability::kAlpha;
  m.description = "Turns each diagnosis/1 into advice/1: ranked suggestions from a JSON knowledge base.";
  m.inputs = {
      {"diagnosis", {std::string(Diagnosis::type_id)}, true, "what is wrong (a scenario analyzer's output)"},
      {"features",
       {std::string(FeatureSet::type_id)},
       false,
       "the run's features, for suggestion parameters"},
      {"config",
       {std::string(RunConfiguration::type_id)},
       false,
       "the run's configuration (run_config reader)"},
  };
  m.outputs = {{"advice", std::string(Advice::type_id),
                "one per root cause answered (most likely first), at end of stream"}};
  m.options = {
      {.name = "kb_dir",
       .type = OptionType::kString,
       .description = "folder holding problem_patterns.json and solution_templates.json",
       .default_value = nullptr,
       .required = true,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "history",
       .type = OptionType::kString,
       .description = "outcomes the optimize loop measured (cann-debug.kb-outcomes/1 JSON); \"\" or a "
                      "file that does not exist yet = priors only",
       .default_value = "",
       .required = false,
       .min = {},
       .max = {},
       .enum_values = {}},
      {.name = "min_confidence",
       .type = OptionType::kDouble,
       .description =
           "root causes below this confidence get no suggestions (the most likely one always does)",
       .default_value = 0.05,
       .required = false,
       .min = 0.0,
       .max = 1.0,
       .enum_values = {}},
      {.name = "max_root_causes",
       .type = OptionType::kInt,
       .description = "at most this many root causes of a diagnosis are answered",
       .default_value = 3,
       .required = false,
       .min = 1,
       .max = 100,
       .enum_values = {}},
  };
  m.concurrency = Concurrency::serial();
  m.sample_yaml =
      "# Suggestions for the diagnosis, parameters from the features and config.json.\n"
      "kb_advisor/main:\n"
      "  kb_dir: \"${pipeline_dir}/kb\"\n"
      "  history: \"\"            # outcomes.json of `cann-debug optimize --feedback`, optional\n"
      "  min_confidence: 0.05\n"
      "  max_root_causes: 3\n";
  return m;
}

class KbAdvisor final : public Component {
 public:
  KbAdvisor(const CreateContext& ctx, const Config& config)
      : host_(ctx.host),
        kb_dir_(config.str("kb_dir")),
        history_path_(config.str("history")),
        limits_{config.number("min_confidence"),
                static_cast<std::size_t>(config.integer("max_root_causes"))} {}

  void start() override {
    kb_ = kb::load_knowledge_base(kb_dir_);
    if (!history_path_.empty()) {
      history_ = cann_debug::kb::OutcomeStore::load(history_path_);
      host_.logger().info("history {}: outcomes of {} suggestions", history_path_,
                          history_.outcomes().size());
    }
  }

  void process(const Envelope& message, std::size_t port, Emitter& /*out*/) override {
    if (port == kDiagnosisPort) {
      diagnoses_.emplace_back(message.key(), message.as<Diagnosis>());
    } else if (port == kFeaturesPort) {
      features_.push_back(message.as<FeatureSet>());
    } else if (port == kConfigPort) {
      config_ = message.as<RunConfiguration>().values;
      has_config_ = true;
    } else {
      throw std::runtime_error(fmt::format("kb_advisor: no input port {}", port));
    }
  }

  void flush(Emitter& out) override {
    for (const auto& [key, diagnosis] : diagnoses_) {
      std::vector<std::string> unanswered;
      kb::AdviceInputs inputs{&diagnosis, &features_, has_config_ ? &config_ : nullptr};
      for (Advice& advice : kb::build_advice(kb_, history_, inputs, limits_, unanswered))
        out.emit(0, key, std::move(advice));
      for (const auto& id : unanswered)
        host_.logger().warn("no problem pattern for root cause '{}' in {}", id, kb_dir_);
    }
    diagnoses_.clear();
  }

 private:
  HostServices& host_;
  std::string kb_dir_;
  std::string history_path_;
  kb::AdviceLimits limits_;
  kb::KnowledgeBase kb_;
  cann_debug::kb::OutcomeStore history_;
  std::vector<std::pair<CorrelationKey, Diagnosis>> diagnoses_;
  std::vector<FeatureSet> features_;
  json config_;
  bool has_config_ = false;
};

class KbAdvisorFactory final : public SimpleFactory<KbAdvisor> {
 public:
  using SimpleFactory::SimpleFactory;
  std::vector<ConfigProblem> validate(const Config& config) const override {
    const std::string dir = config.str("kb_dir");
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec))
      return {{"kb_dir", fmt::format("'{}' is not a folder (it should hold {} and {})", dir,
                                     kb::kPatternsFile, kb::kTemplatesFile)}};
    for (const char* file : {kb::kPatternsFile, kb::kTemplatesFile})
      if (!std::filesystem::is_regular_file(std::filesystem::path(dir) / file, ec))
        return {{"kb_dir", fmt::format("'{}' has no {}", dir, file)}};
    return {};
  }
};

}  // namespace

const ComponentFactory& kb_advisor_factory() {
  static const KbAdvisorFactory factory(make_manifest());
  return factory;
}

}  // namespace cann_debug::plugins
