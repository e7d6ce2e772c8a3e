// cann-debug: the command line of the plugin host.
#include <CLI/CLI.hpp>

#include <fmt/format.h>

#include "cann_debug/abi.hpp"
#include "cli_common.hpp"
#include "cmd_stats.hpp"

int main(int argc, char** argv) {
  using namespace cann_debug::cli;
  CLI::App app{
      "cann-debug: turns profiler traces, training logs and hardware counters into a ranked, explained "
      "root cause and an executable fix.",
      "cann-debug"};
  app.set_version_flag("--version",
                       fmt::format("cann-debug {} (plugin ABI {}.{}, SDK {}, {}, {})", CANN_DEBUG_VERSION,
                                   CANN_DEBUG_ABI_MAJOR, CANN_DEBUG_ABI_MINOR, CANN_DEBUG_SDK_VERSION,
                                   CANN_DEBUG_COMPILER, CANN_DEBUG_STDLIB));
  app.require_subcommand(1);
  app.footer(
      "Exit codes: 0 ok, 1 a component failed, 2 usage error, 3 invalid pipeline, 4 not found, 130 "
      "interrupted.\nPlugins are searched in --plugin-path, $CANN_DEBUG_PLUGIN_PATH, the pipeline's "
      "plugins.paths, the build tree and the install prefix.");
  GlobalOptions g;
  app.add_option("--plugin-path", g.plugin_paths,
                 "Directory or package file to load plugins from (repeatable)")
      ->envname("")
      ->take_all();
  app.add_flag("-v,--verbose", g.verbosity, "More output on stderr (-vv for debug)");

  std::vector<Verb> verbs;
  for (Registrar r : {register_run, register_validate, register_plugins, register_inspect, register_graph,
                      register_infer, register_kb, register_diagnose, register_eval, register_stats,
                      register_collect, register_optimize, register_new_plugin})
    verbs.push_back(r(app, g));

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    int rc = app.exit(e);
    return rc == 0 ? kOk : kUsage;
  }
  setup_logging(g.verbosity);
  for (auto& v : verbs)
    if (v.command->parsed()) return v.action();
  return kUsage;
}
