// correlate: joins two streams (records, metric points, events) by step, or by time window.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& correlate_factory();

}  // namespace cann_debug::plugins
