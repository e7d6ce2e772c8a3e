// hardware_features: sampled hardware and host series (a collect recording, or live samplers) -> the
// hardware conditions a diagnosis weighs (throttled device clocks, memory pressure, network congestion,
// a starved host), as feature.set/1 with the window, the device and the steps or requests it overlapped.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& hardware_features_factory();

}  // namespace cann_debug::plugins
