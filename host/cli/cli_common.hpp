// What every verb of the command line shares: global options, exit codes, loading plugins and pipelines.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "graph_runner.hpp"
#include "pipeline_plan.hpp"
#include "plugin_registry.hpp"

namespace cann_debug::cli {

/// Documented in docs/cli.md.
enum ExitCode : int {
  kOk = 0,
  kRunFailed = 1,        // a component failed while running
  kUsage = 2,            // bad command line
  kInvalidPipeline = 3,  // the pipeline has errors (all are printed)
  kNotFound = 4,         // unknown component type, or no plugin could be loaded
  kInterrupted = 130,    // stopped by Ctrl-C/SIGTERM after draining what was collected
};

struct GlobalOptions {
  std::vector<std::string> plugin_paths;
  int verbosity = 0;
};

struct PipelineArgs {
  std::string file;
  std::string input;
  std::string output;
  std::vector<std::string> vars;       // name=value
  std::vector<std::string> overrides;  // type/name.option=value
  void add_to(CLI::App& cmd, bool with_file = true);
};

void setup_logging(int verbosity);

/// Loads packages from --plugin-path, the pipeline's plugins.paths, then the default search path.
std::unique_ptr<host::PluginRegistry> load_registry(const GlobalOptions& g,
                                                    const std::vector<std::string>& extra_paths = {});

/// Parses, loads plugins for, and validates a pipeline; prints every problem to stderr.
/// `registry` receives the registry used (the plan refers to it).
std::optional<host::PipelinePlan> load_pipeline(const GlobalOptions& g, const PipelineArgs& args,
                                                std::unique_ptr<host::PluginRegistry>& registry,
                                                bool probe = true);

/// A pipeline the command line builds itself (e.g. `infer`), run to completion. Captured envelopes refer
/// to the plan, so keep this object alive while reading them.
struct EmbeddedRun {
  std::unique_ptr<host::PluginRegistry> registry;
  std::optional<host::PipelinePlan> plan;
  host::RunReport report;
};

/// Parses, validates and runs `yaml` (named `name` in diagnostics); prints problems to stderr. Returns an
/// exit code: kOk, kInvalidPipeline or kRunFailed.
int run_embedded(const GlobalOptions& g, const std::string& yaml, const std::string& name, EmbeddedRun& out);

/// A verb: its subcommand and what runs when it was given (returns the exit code).
struct Verb {
  CLI::App* command = nullptr;
  std::function<int()> action;
};
using Registrar = Verb (*)(CLI::App& app, const GlobalOptions& g);
Verb register_run(CLI::App& app, const GlobalOptions& g);
Verb register_collect(CLI::App& app, const GlobalOptions& g);
Verb register_validate(CLI::App& app, const GlobalOptions& g);
Verb register_plugins(CLI::App& app, const GlobalOptions& g);
Verb register_inspect(CLI::App& app, const GlobalOptions& g);
Verb register_graph(CLI::App& app, const GlobalOptions& g);
Verb register_infer(CLI::App& app, const GlobalOptions& g);
Verb register_kb(CLI::App& app, const GlobalOptions& g);
Verb register_diagnose(CLI::App& app, const GlobalOptions& g);
Verb register_eval(CLI::App& app, const GlobalOptions& g);
Verb register_new_plugin(CLI::App& app, const GlobalOptions& g);

}  // namespace cann_debug::cli
