#include "cli_runner.hpp"

#include <sys/wait.h>

#include <cstdlib>

#include "fixtures.hpp"
#include "temp_dir.hpp"

namespace cann_debug::itest {

namespace {
std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}
}  // namespace

CliResult run_cli(const std::vector<std::string>& args) {
  TempDir dir("cdt-cli");
  std::string cmd = "env -u CANN_DEBUG_PLUGIN_PATH ";
  cmd += quote(CANN_DEBUG_BINARY_DIR "/bin/cann-debug");
  for (const auto& a : args) cmd += " " + quote(a);
  cmd += " >" + quote(dir.file("out")) + " 2>" + quote(dir.file("err")) + " </dev/null";
  const int status = std::system(cmd.c_str());
  CliResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(dir.file("out"));
  r.err = read_text(dir.file("err"));
  return r;
}

CliResult run_cli_with_fixtures(const std::vector<std::string>& args) {
  std::vector<std::string> all = {"--plugin-path", fixture_dir("good")};
  all.insert(all.end(), args.begin(), args.end());
  return run_cli(all);
}

}  // namespace cann_debug::itest
