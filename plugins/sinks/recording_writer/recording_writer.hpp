// recording_writer: writes the metric.batch/1 it receives to a recording (.cdr), optionally keeping full
// resolution only around anomalies (anomaly-window retention). `cann-debug collect` ends in one.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& recording_writer_factory();

}  // namespace cann_debug::plugins
