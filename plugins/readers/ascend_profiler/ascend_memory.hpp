// ascend_memory: a reader of Ascend profiler output (see the manifest's description and docs/readers.md).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& ascend_memory_factory();

}  // namespace cann_debug::plugins
