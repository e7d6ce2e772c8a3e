// kernel_log: a reader of kernel logs (see the manifest's description and README.md).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& kernel_log_factory();

}  // namespace cann_debug::plugins
