// recording: reads a recording made by `cann-debug collect` (.cdr) back as metric.batch/1, so every
// analysis runs on a recording as on live data.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& recording_factory();

}  // namespace cann_debug::plugins
