// bayes_exact engine: exact posteriors (junction tree) of a causal graph for each evidence/1 -> posterior/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& bayes_exact_factory();

}  // namespace cann_debug::plugins
