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

void append_pattern(const KnowledgeBase& kb, const OutcomeHistory& history, const ProblemPattern& pattern,
                    const MeasuredContext& context, Advice& advice) {
  for (const auto& entry : pattern.suggestions) {
    if (entry.when && !has_feature(context, *entry.when)) continue;
    if (entry.unless && has_feature(context, *entry.unless)) continue;
    advice.suggestions.push_back(
        render_suggestion(kb.templates.at(entry.template_id), entry, context, history));
  }
}

}  // namespace

std::vector<Advice> build_advice(const KnowledgeBase& kb, const OutcomeHistory& history,
                                 const AdviceInputs& inputs, const AdviceLimits& limits,
                                 std::vector<std::string>& unanswered) {
  const Diagnosis& diagnosis = *inputs.diagnosis;
  MeasuredContext context{inputs.features, inputs.config, &diagnosis, nullptr};

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
