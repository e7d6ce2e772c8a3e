// The advice for one Diagnosis: one Advice per root cause worth acting on (confidence order, `healthy`
// skipped), each with the suggestions of its problem pattern in priority order.
#pragma once

#include <string>
#include <vector>

#include "cann_debug/kb_outcomes.hpp"
#include "cann_debug/messages.hpp"
#include "knowledge_base.hpp"

namespace cann_debug::plugins::kb {

struct AdviceLimits {
  double min_confidence = 0.05;     // root causes below it get no suggestions (except the top one)
  std::size_t max_root_causes = 3;  // at most this many root causes are answered
};

struct AdviceInputs {
  const Diagnosis* diagnosis = nullptr;
  const std::vector<FeatureSet>* features = nullptr;
  const nlohmann::json* config = nullptr;  // config.json document, or null
};

/// Builds the advice, most likely root cause first. A healthy diagnosis gets one Advice for `healthy` (with
/// the suggestions of a `healthy` pattern, if the knowledge base has one). Root causes the knowledge base has
/// no pattern for are listed in `unanswered`. Within a pattern, suggestions the optimize loop validated more
/// often than not (success probability > 0.5) come first, by success probability x mean gain; those that
/// failed more often than not come last; the others keep the knowledge base's priority order.
std::vector<Advice> build_advice(const KnowledgeBase& kb, const cann_debug::kb::OutcomeStore& history,
                                 const AdviceInputs& inputs, const AdviceLimits& limits,
                                 std::vector<std::string>& unanswered);

}  // namespace cann_debug::plugins::kb
