// rolling_stats: windowed mean/std/median/MAD and robust z-scores of every numeric series -> feature.set/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& rolling_stats_factory();

}  // namespace cann_debug::plugins
