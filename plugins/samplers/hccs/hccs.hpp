// hccs: a sampler of the HCCS links between Ascend NPUs (bandwidth, CRC errors, retries, status) through
// DCMI (libdcmi.so), emitting metric.batch/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& hccs_factory();

}  // namespace cann_debug::plugins
