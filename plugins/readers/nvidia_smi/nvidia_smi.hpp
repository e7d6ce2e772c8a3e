// nvidia_smi: a reader of nvidia-smi captures (see the manifest's description and README.md).
#pragma once

#include "cann_debug/component.hpp"

namespace cann_debug::plugins {

const ComponentFactory& nvidia_smi_factory();

}  // namespace cann_debug::plugins
