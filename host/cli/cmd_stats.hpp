// `cann-debug stats PATH... [--json]`: what is in profiler traces, logs and metric files (docs/cli.md).
#pragma once

#include "cli_common.hpp"

namespace cann_debug::cli {

Verb register_stats(CLI::App& app, const GlobalOptions& g);

}  // namespace cann_debug::cli
