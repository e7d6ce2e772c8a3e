// The knowledge base of kb_advisor, as loaded from problem_patterns.json and solution_templates.json
// (schemas in docs/advisors.md): which suggestions answer which root cause, and how each suggestion's
// parameters are derived from the measured context.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace cann_debug::plugins::kb {

/// Where one parameter value may come from. The first source of a parameter that yields a value wins.
struct ParameterSource {
  enum class Kind { kFeature, kFeatureEvidence, kConfig, kDiagnosis, kEvidence, kDetails, kDefault };
  Kind kind = Kind::kDefault;
  std::string
      name;  // feature name, config key (dotted), diagnosis field, evidence kind, details JSON pointer
  std::map<std::string, std::string> labels;  // feature, feature_evidence: labels the feature must carry
  std::string evidence_kind;                  // feature_evidence: kind of the feature's evidence reference
  std::string field;                          // evidence, feature_evidence: "id", "first_step" or "last_step"
  nlohmann::json default_value;               // kDefault: used as written
  // Transforms of a numeric value, in this order: multiply_by, divide_by, reciprocal, pow10, scale, offset.
  std::vector<ParameterSource> multiply_by;  // at most one; a source without fallback
  std::vector<ParameterSource> divide_by;    // at most one; a source without fallback
  bool reciprocal = false;
  bool pow10 = false;
  double scale = 1.0;
  double offset = 0.0;
};

struct ParameterSpec {
  std::string name;
  std::string description;
  std::vector<ParameterSource> sources;
  std::optional<double> cite_above;  // a measured number at or below it counts as missing ("0% of the steps")
  std::optional<double> min, max;    // clamp of a numeric value (not of a default)
  std::optional<int> round;          // decimals; 0 = an integer
  std::optional<int> significant;    // significant digits
  std::string format = "number";     // how text shows it: number, integer, percent, bytes, ratio
  /// True when the last source is a default, so the parameter always has a value.
  bool always_resolves() const {
    return !sources.empty() && sources.back().kind == ParameterSource::Kind::kDefault;
  }
};

struct SolutionTemplate {
  std::string id;
  std::string title;
  std::vector<std::string> rationale;  // sentences; one whose measured parameter is missing is left out
  nlohmann::json config_patch;         // an object; strings may hold placeholders
  std::map<std::string, std::string> code;
  std::string risk;
  double expected_improvement = 0.0;  // prior: relative improvement of target_metric, 0..1
  std::string prior_source;           // where the prior figure comes from
  std::string target_metric;
  std::string target_better = "lower";  // which way target_metric improves: lower, higher, closer_to_zero
  std::map<std::string, ParameterSpec> parameters;
};

/// A feature the run must have (`when`) or must not have (`unless`), with the labels it must carry and,
/// with `above`, a value above that.
struct FeatureCondition {
  std::string feature;
  std::map<std::string, std::string> labels;
  std::optional<double> above;
};

struct PatternSuggestion {
  std::string template_id;
  int priority = 1;
  std::optional<double> expected_improvement;  // overrides the template's prior for this root cause
  std::vector<FeatureCondition> when;          // given when any of them holds (none: always)
  std::optional<FeatureCondition> unless;      // e.g. a device-side fix only for a compute gap
};

struct ProblemPattern {
  std::string root_cause;
  std::string scenario;
  std::string title;
  std::string description;
  std::vector<PatternSuggestion> suggestions;  // sorted by priority
};

struct KnowledgeBase {
  std::map<std::string, ProblemPattern> patterns;  // by root cause id
  std::map<std::string, SolutionTemplate> templates;
};

inline constexpr const char* kPatternsFile = "problem_patterns.json";
inline constexpr const char* kTemplatesFile = "solution_templates.json";
inline constexpr const char* kPatternsFormat = "cann-debug.kb-patterns/1";
inline constexpr const char* kTemplatesFormat = "cann-debug.kb-solutions/1";

/// Loads and checks both files of `dir`. Throws std::runtime_error naming the file, the JSON pointer (or
/// byte offset of a syntax error) and what was expected.
KnowledgeBase load_knowledge_base(const std::string& dir);

/// Parses one solution_templates.json / problem_patterns.json document; `file` names it in errors.
std::map<std::string, SolutionTemplate> parse_templates(const nlohmann::json& doc, const std::string& file);
std::map<std::string, ProblemPattern> parse_patterns(
    const nlohmann::json& doc, const std::string& file,
    const std::map<std::string, SolutionTemplate>& templates);

}  // namespace cann_debug::plugins::kb
