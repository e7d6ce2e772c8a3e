// jsonl: a reader of JSON-lines files (one object per line) that emits record.batch/1.
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const cann_debug::ComponentFactory& jsonl_factory();

}  // namespace cann_debug::plugins
