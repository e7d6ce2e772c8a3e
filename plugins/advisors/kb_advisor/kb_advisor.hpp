// kb_advisor: turns each diagnosis/1 into advice/1 with executable suggestions from the knowledge base
// (problem_patterns.json, solution_templates.json; see docs/advisors.md).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& kb_advisor_factory();

}  // namespace cann_debug::plugins
