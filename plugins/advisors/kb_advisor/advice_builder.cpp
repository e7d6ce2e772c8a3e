#include "advice_builder.hpp"

#include <algorithm>

#include "measured_context.hpp"
#include "suggestion_renderer.hpp"

namespace cann_debug::plugins::kb {
namespace {

constexpr const char* kHealthy = "healthy";

bool has_feature(const MeasuredContext& context, const FeatureCondition& c) {
  if (context.features == nullptr) return false;
  const Feature* f = find_feature(*context.features, c.feature, c.labels);
  return f != nullptr && (!c.above || f->value > *c.above);
}

/// 1 for suggestions that mostly worked when validated, 3 for those that mostly failed, 2 otherwise.
int history_rank(const Suggestion& s) {
  if (!s.history.is_object()) return 2;
  const double p = s.history.value("success_probability", 0.5);
  return p > 0.5 ? 1 : p < 0.5 ? 3 : 2;
}

double history_score(const Suggestion& s) {
  if (!s.history.is_object()) return 0.0;
  return s.history.value("success_probability", 0.5) * std::max(0.0, s.history.value("mean_gain", 0.0));
}

void append_pattern(const KnowledgeBase& kb, const cann_debug::kb::OutcomeStore& history,
                    const ProblemPattern& pattern, const MeasuredContext& context, Advice& advice) {
  const std::size_t first = advice.suggestions.size();
  for (const auto& entry : pattern.suggestions) {
    if (!entry.when.empty() &&
        std::none_of(entry.when.begin(), entry.when.end(),
                     [&](const FeatureCondition& c) { return has_feature(context, c); }))
      continue;
    if (entry.unless && has_feature(context, *entry.unless)) continue;
    advice.suggestions.push_back(
        render_suggestion(kb.templates.at(entry.template_id), entry, context, history));
  }
  std::stable_sort(advice.suggestions.begin() + static_cast<std::ptrdiff_t>(first), advice.suggestions.end(),
                   [](const Suggestion& a, const Suggestion& b) {
                     const int ra = history_rank(a), rb = history_rank(b);
                     if (ra != rb) return ra < rb;
                     return ra == 1 && history_score(a) > history_score(b);
                   });
}

}  // namespace

std::vector<Advice> build_advice(const KnowledgeBase& kb, const cann_debug::kb::OutcomeStore& history,
                                 const AdviceInputs& inputs, const AdviceLimits& limits,
                                 std::vector<std::string>& unanswered) {
  const Diagnosis& diagnosis = *inputs.diagnosis;
  // The run's context is the same for every suggestion: told once.
  const auto where = cann_debug::kb::OutcomeContext::of_run(
      RunConfiguration{"", inputs.config ? *inputs.config : nlohmann::json::object()}, diagnosis.scenario);
  MeasuredContext context{inputs.features, inputs.config, &diagnosis, nullptr, &where};

  if (diagnosis.healthy) {
    // At most a "keep monitoring" pattern, when the knowledge base ships one for `healthy`.
    Advice advice;
    advice.for_root_cause = kHealthy;
    RootCause healthy{kHealthy, 1.0, {}, {}, ""};
    for (const auto& rc : diagnosis.root_causes)
      if (rc.id == kHealthy) healthy = rc;
    if (auto it = kb.patterns.find(kHealthy); it != kb.patterns.end()) {
      context.root_cause = &healthy;
      append_pattern(kb, history, it->second, context, advice);
    }
    return {advice};
  }

  // An undetermined diagnosis ranks the graph's prior, not evidence of the run: a fix chosen from it would be
  // advice about causes nothing pointed at.
  if (diagnosis.details.is_object() && diagnosis.details.contains("undetermined")) return {};

  std::vector<const RootCause*> causes;
  for (const auto& rc : diagnosis.root_causes)
    if (rc.id != kHealthy) causes.push_back(&rc);
  std::stable_sort(causes.begin(), causes.end(),
                   [](const RootCause* a, const RootCause* b) { return a->confidence > b->confidence; });

  std::vector<Advice> out;
  for (const RootCause* rc : causes) {
    if (out.size() >= limits.max_root_causes) break;
    // The most likely cause of an unhealthy run is always answered; the others only when plausible.
    if (!out.empty() && rc->confidence < limits.min_confidence) break;
    auto it = kb.patterns.find(rc->id);
    if (it == kb.patterns.end()) {
      unanswered.push_back(rc->id);
      continue;
    }
    Advice advice;
    advice.for_root_cause = rc->id;
    context.root_cause = rc;
    append_pattern(kb, history, it->second, context, advice);
    out.push_back(std::move(advice));
  }
  return out;
}

}  // namespace cann_debug::plugins::kb
