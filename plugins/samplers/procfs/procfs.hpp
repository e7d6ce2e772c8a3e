// procfs: a sampler of host CPU, memory and load from Linux /proc, emitting metric.frame/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& procfs_factory();

}  // namespace cann_debug::plugins
