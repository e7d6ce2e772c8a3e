// distributed_features extractor: per-rank traces, per-rank step logs and the run config of a data-parallel
// training run -> feature.set/1 (step time split, exposed communication, collective counts, rank skews).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& distributed_features_factory();

}  // namespace cann_debug::plugins
