// chrome_trace: a reader of Chrome trace JSON (torch.profiler/Kineto, Ascend trace_view.json, PyTorch's
// legacy exporter; plain or gzip) that emits event.batch/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& chrome_trace_factory();

}  // namespace cann_debug::plugins
