// Runs the real cann-debug binary with the fixture plugin directory and captures exit code and output.
#pragma once

#include <string>
#include <vector>

namespace cann_debug::itest {

struct CliResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

/// `cann-debug <args...>` with CANN_DEBUG_PLUGIN_PATH unset; args are passed verbatim (shell-quoted).
CliResult run_cli(const std::vector<std::string>& args);

/// `cann-debug --plugin-path <good fixtures> <args...>`.
CliResult run_cli_with_fixtures(const std::vector<std::string>& args);

}  // namespace cann_debug::itest
