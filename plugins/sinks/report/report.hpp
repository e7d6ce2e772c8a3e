// report: sink writing the diagnosis of a run as report.json, report.md and one self-contained report.html.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& report_factory();

}  // namespace cann_debug::plugins
