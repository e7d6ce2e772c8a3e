// evidence_source reader: one evidence/1 message from its options (hard and soft maps), then done.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& evidence_source_factory();

}  // namespace cann_debug::plugins
