// cpt_learn: re-estimates the probability tables of a causal graph from labelled evidence (one evidence/1
// per case, the label as hard evidence on the label variable) and writes the learnt graph.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& cpt_learn_factory();

}  // namespace cann_debug::plugins
