// What a suggestion's parameters may be computed from: the run's features, its config.json, and the root
// cause being answered (its confidence and evidence, the diagnosis details).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cann_debug/kb_outcomes.hpp"
#include "cann_debug/messages.hpp"
#include "knowledge_base.hpp"

namespace cann_debug::plugins::kb {

struct MeasuredContext {
  const std::vector<FeatureSet>* features = nullptr;  // run-scope sets are searched first
  const nlohmann::json* config = nullptr;             // the config.json document (null = none)
  const Diagnosis* diagnosis = nullptr;
  const RootCause* root_cause = nullptr;
  /// Where the run was made (scenario, model, hardware, ...), for the outcomes measured in such runs; null =
  /// nothing known.
  const cann_debug::kb::OutcomeContext* run_context = nullptr;
};

/// The value a parameter takes in `context` (a number or a string; a default as written), after the
/// first source that yields one; nullopt when none does. Numbers are clamped and rounded as the spec says.
std::optional<nlohmann::json> resolve_parameter(const ParameterSpec& spec, const MeasuredContext& context);

/// The source's raw value with its transforms applied; nullopt when it does not exist in `context`.
std::optional<nlohmann::json> resolve_source(const ParameterSource& source, const MeasuredContext& context);

/// The feature of that name (and labels) from the run-scope sets first, then the others. With no labels
/// asked for, an unlabelled feature is preferred.
const Feature* find_feature(const std::vector<FeatureSet>& sets, const std::string& name,
                            const std::map<std::string, std::string>& labels);

/// A value of a config document by dotted key ("optimizer.lr"); null and absent give nullptr.
const nlohmann::json* find_config_value(const nlohmann::json& config, const std::string& dotted_key);

}  // namespace cann_debug::plugins::kb
