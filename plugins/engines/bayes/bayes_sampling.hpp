// bayes_sampling engine: approximate posteriors by likelihood weighting for each evidence/1 -> posterior/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& bayes_sampling_factory();

}  // namespace cann_debug::plugins
