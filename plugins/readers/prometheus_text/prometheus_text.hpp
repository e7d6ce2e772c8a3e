// prometheus_text: a reader of Prometheus text exposition files (e.g. saved npu-exporter /metrics output).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& prometheus_text_factory();

}  // namespace cann_debug::plugins
