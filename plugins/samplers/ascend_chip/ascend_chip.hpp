// ascend_chip: a sampler of Ascend NPU utilisation, HBM, power, temperature, frequency and health, through
// DCMI (libdcmi.so) or npu-smi, emitting metric.frame/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& ascend_chip_factory();

}  // namespace cann_debug::plugins
