// Turns one solution template into a Suggestion for one root cause of one run: parameters computed from
// the measured context, placeholders filled, rationale sentences whose measurements are missing left out,
// evidence references cited, and the expected improvement taken from what the optimize loop measured
// (kb-outcomes/1) when it validated the suggestion before.
#pragma once

#include <string>

#include "cann_debug/kb_outcomes.hpp"
#include "cann_debug/messages.hpp"
#include "knowledge_base.hpp"
#include "measured_context.hpp"

namespace cann_debug::plugins::kb {

/// Suggestion id: "<root cause>/<template id>" (Suggestion has no root-cause field of its own).
std::string suggestion_id(const std::string& root_cause, const std::string& template_id);

Suggestion render_suggestion(const SolutionTemplate& tpl, const PatternSuggestion& entry,
                             const MeasuredContext& context, const cann_debug::kb::OutcomeStore& history);

/// "steps 120-180", "rank rank3", ... for at most `limit` references; "" for none.
std::string describe_evidence(const std::vector<EvidenceRef>& evidence, std::size_t limit);

}  // namespace cann_debug::plugins::kb
