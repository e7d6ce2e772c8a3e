// roce: a sampler of RoCE NIC counters — the on-die NIC of Ascend NPUs (DCMI or hccn_tool) and Linux RDMA
// devices (/sys/class/infiniband) — as rates and deltas, emitting metric.batch/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& roce_factory();

}  // namespace cann_debug::plugins
